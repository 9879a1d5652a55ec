/// Bytes as hexadecimal digits, two per byte: how `read` prints data, how `-data` takes it, and how
/// external-storage references spell a SHA-256.
package enum Hex {
    /// Lowercase digits.
    package static func encode(_ bytes: [UInt8]) -> String {
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(JSONWriter.hexDigits[Int(byte >> 4)])
            text.append(JSONWriter.hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes that `text` spells (digits in either case); nil when it is not two digits per byte.
    package static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        let values = digits.compactMap { NumberText.digitValue($0).map(UInt8.init) }
        guard digits.count % 2 == 0, values.count == digits.count else { return nil }
        return stride(from: 0, to: values.count, by: 2).map { values[$0] << 4 | values[$0 + 1] }
    }
}
