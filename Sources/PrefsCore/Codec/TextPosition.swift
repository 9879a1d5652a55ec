/// Turns a byte offset into "line L, column C" for error messages in text formats. Computed only
/// when an error is reported.
enum TextPosition {
    static func describe(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int) -> String {
        let end = Swift.min(Swift.max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        let column = 1 + bytes[lineStart..<end].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return "line \(line), column \(column)"
    }
}
