/// Encodes one Unicode scalar value as UTF-8 into a buffer (the caller guarantees room for 4 bytes
/// and a valid scalar value).
enum UTF8Writer {
    @inline(__always)
    static func write(_ scalar: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        switch scalar {
        case 0..<0x80:
            out[index] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[index] = UInt8(0xC0 | scalar >> 6)
            out[index + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[index] = UInt8(0xE0 | scalar >> 12)
            out[index + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[index + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[index] = UInt8(0xF0 | scalar >> 18)
            out[index + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[index + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[index + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}

/// Strict UTF-8 to String: nil for any invalid sequence (overlong forms, surrogates, values above
/// U+10FFFF, truncation), never a replacement character. Faster than the stdlib's generic
/// `String(validating:)`, which these decoders call for every string.
enum UTF8Text {
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard isValid(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string($0) }
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let count = bytes.count
        while i < count {
            let lead = bytes[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard i + length <= count, bytes[i + 1] >= low && bytes[i + 1] <= high else { return false }
            for j in 2..<length where bytes[i + j] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
