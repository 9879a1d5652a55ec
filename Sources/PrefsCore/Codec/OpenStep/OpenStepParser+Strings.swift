extension OpenStepParser {
    /// A quoted string starting at its opening quote.
    mutating func quoted() throws -> String {
        let start = index
        let quote = bytes[index]
        index += 1
        var out = [UInt8]()
        var pendingHigh: UInt32? = nil
        while let c = current {
            index += 1
            if c == quote {
                guard pendingHigh == nil else { throw failure("lone surrogate in \\U escape", at: start) }
                guard let string = UTF8Text.string(out) else {
                    throw failure("string is not valid UTF-8", at: start)
                }
                return string
            }
            guard c == UInt8(ascii: "\\") else {
                guard pendingHigh == nil else { throw failure("lone surrogate in \\U escape", at: start) }
                out.append(c)
                continue
            }
            guard let e = current else { break }
            index += 1
            if e == UInt8(ascii: "U") {
                let unit = hexEscape()
                if let high = pendingHigh {
                    guard (0xDC00...0xDFFF).contains(unit) else { throw failure("lone surrogate in \\U escape", at: start) }
                    pendingHigh = nil
                    append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))!, to: &out)
                } else if (0xD800...0xDBFF).contains(unit) {
                    pendingHigh = unit
                } else if let scalar = Unicode.Scalar(unit) {
                    append(scalar, to: &out)
                } else {
                    throw failure("lone surrogate in \\U escape", at: start)
                }
                continue
            }
            guard pendingHigh == nil else { throw failure("lone surrogate in \\U escape", at: start) }
            switch e {
            case UInt8(ascii: "a"): out.append(0x07)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "v"): out.append(0x0B)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(e - 0x30)
                var count = 1
                while count < 3, let d = current, d >= 0x30 && d <= 0x37 {
                    value = value * 8 + UInt32(d - 0x30)
                    index += 1
                    count += 1
                }
                guard value < 0x80 else {
                    throw failure("octal escape \\\(String(value, radix: 8)) above \\177 (NeXTSTEP encoding is not supported; use \\U)", at: index - count - 1)
                }
                out.append(UInt8(value))
            default:
                out.append(e)
            }
        }
        throw failure("unterminated string", at: start)
    }

    /// Up to four hex digits after `\U`.
    mutating func hexEscape() -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while count < 4, let c = current, let digit = NumberText.digitValue(c) {
            value = value << 4 | UInt32(digit)
            index += 1
            count += 1
        }
        return value
    }

    func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: String(Character(scalar)).utf8)
    }
}
