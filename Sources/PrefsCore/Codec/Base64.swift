/// Standard base64 (RFC 4648, `+/`, padded), as XML plists and prefs' JSON mapping use it.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Appends the base64 of `bytes` to `out`, on one line.
    static func encode(_ bytes: [UInt8], into out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        encode(bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64, skipping ASCII whitespace anywhere. Padding may be omitted; anything else that
    /// is not base64 (a stray character, data after padding, a lone final character) gives nil.
    static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(text.count / 4 * 3)
        var decoder = Decoder()
        guard decoder.feed(text, into: &out), decoder.finish() else { return nil }
        return out
    }

    /// Base64 that may arrive in pieces, decoded as `decode` decodes it whole.
    struct Decoder {
        private var accumulator: UInt32 = 0
        private var bits = 0
        private var padding = 0

        /// Appends the bytes the piece completes; false when it is not base64.
        mutating func feed<C: Collection>(_ text: C, into out: inout [UInt8]) -> Bool where C.Element == UInt8 {
            for c in text {
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
                if c == UInt8(ascii: "=") { padding += 1; continue }
                let v = decodeTable[Int(c)]
                guard v != 0xFF, padding == 0 else { return false }
                accumulator = accumulator << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                }
            }
            return true
        }

        /// Whether the text ended well: 6 leftover bits mean a lone final character, and padding
        /// must fit what is left.
        func finish() -> Bool {
            guard bits != 6, padding <= 2 else { return false }
            return !(padding > 0 && (padding != (bits == 4 ? 2 : bits == 2 ? 1 : -1)))
        }
    }
}
