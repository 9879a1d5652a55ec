/// How values read as text in messages and listings: scalars bare, containers in a readable form on
/// one line or indented. The command prints with it, and `PrefsError`'s messages quote values with it,
/// so a Swift program gets the same sentence the command prints.
package enum ReadableText {
    /// The bare form of a scalar: strings as they are, integers in decimal, reals in the shortest
    /// form that reads back exactly, booleans as true/false, dates as ISO 8601 UTC (fraction only when
    /// there is one), data as lowercase hex, UIDs as their number.
    /// (Inlinable: a one-key read prints through it, and the command's release link keeps what a
    /// short command runs together, `Tests/Benchmarks/startup.order`.)
    @inlinable
    package static func bare(_ value: PrefValue) -> String? {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .unsignedInteger(let u): return String(u)
        case .real(let r): return r.description
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return d.iso8601()
        case .data(let bytes): return Hex.encode(bytes)
        case .uid(let u): return String(u)
        case .array, .dictionary: return nil
        }
    }

    /// The readable form, close to what `defaults read` prints but with every type visible:
    /// `{ key = value; }`, `( a, b )`, numbers and booleans bare, dates ISO 8601, data `<0a0b>`,
    /// UIDs `uid(7)`, strings quoted whenever they could be mistaken for anything else. With no
    /// indent, all on one line.
    package static func readable(_ value: PrefValue, indent: Int?, abbreviatingData: Bool = false, into out: inout String) {
        let pad = indent.map { "\n" + String(repeating: "    ", count: $0 + 1) } ?? ""
        let close = indent.map { "\n" + String(repeating: "    ", count: $0) } ?? ""
        let inner = indent.map { $0 + 1 }
        switch value {
        case .string(let s): out += quotedIfNeeded(s)
        case .data(let bytes) where abbreviatingData && bytes.count > 64: out += abbreviated(bytes)
        case .data(let bytes): out += "<" + Hex.encode(bytes) + ">"
        case .uid(let u): out += "uid(\(u))"
        case .array(let elements):
            guard !elements.isEmpty else { out += "()"; return }
            out += "("
            for (i, element) in elements.enumerated() {
                out += i == 0 ? pad : (indent == nil ? ", " : "," + pad)
                readable(element, indent: inner, abbreviatingData: abbreviatingData, into: &out)
            }
            out += close + ")"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else { out += "{}"; return }
            out += "{"
            for entry in dictionary {
                out += (indent == nil ? " " : pad) + quotedIfNeeded(entry.key) + " = "
                readable(entry.value, indent: inner, abbreviatingData: abbreviatingData, into: &out)
                out += ";"
            }
            out += (indent == nil ? " " : close) + "}"
        default:
            out += bare(value) ?? ""
        }
    }

    /// The readable form on one line (`{ a = 1; b = (x, y); }`), for listings and change reports.
    package static func line(_ value: PrefValue, abbreviatingData: Bool = false) -> String {
        var out = ""
        readable(value, indent: nil, abbreviatingData: abbreviatingData, into: &out)
        return out
    }

    /// `<data: 700000 bytes, sha256 HEX>`: a value by its type, its size and the SHA-256 of a data
    /// value's bytes or a string's UTF-8 (what `sha256sum` gives for the file it came from), or of a
    /// container's one-line form (`line`, given when already made).
    package static func summary(_ value: PrefValue, line: String? = nil) -> String {
        let (bytes, what): ([UInt8], String) = switch value {
        case .data(let data): (data, "bytes")
        case .string(let string): (Array(string.utf8), "bytes of UTF-8")
        default: (Array((line ?? self.line(value)).utf8), "bytes as text")
        }
        return "<\(value.typeName): \(bytes.count) \(what), sha256 \(Hex.encode(SHA256.hash(bytes)))>"
    }

    /// Data as `NSData` describes itself on macOS (`defaults read` prints it so): its length, the
    /// first 16 and the last 8 bytes in groups of 4 — `{length = 300000, bytes = 0x89504e47 0d0a1a0a
    /// 0000000d 49484452 ... ae426082 00000000 }`.
    package static func abbreviated(_ bytes: [UInt8]) -> String {
        func groups(_ slice: ArraySlice<UInt8>) -> String {
            stride(from: slice.startIndex, to: slice.endIndex, by: 4).map { Hex.encode(Array(slice[$0..<min($0 + 4, slice.endIndex)])) }
                .joined(separator: " ")
        }
        return "{length = \(bytes.count), bytes = 0x\(groups(bytes.prefix(16))) ... \(groups(bytes.suffix(8))) }"
    }

    package static let reservedWords: Set<String> = ["true", "false", "yes", "no", "nan", "inf", "infinity", "uid"]

    package static func quotedIfNeeded(_ string: String) -> String {
        let utf8 = string.utf8
        let plain = utf8.first.map { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 == 0x5F } ?? false
            && utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D }
            && !reservedWords.contains(string.lowercased())
        if plain { return string }
        var quoted = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                quoted += "\\U" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
