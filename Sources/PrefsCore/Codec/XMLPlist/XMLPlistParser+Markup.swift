import Glibc

extension XMLPlistParser {
    @inline(__always)
    func startsWith(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pattern = text.utf8Start
        for i in 0..<count where bytes[index + i] != pattern[i] { return false }
        return true
    }

    func find(_ text: StaticString, from start: Int) -> Int? {
        let count = text.utf8CodeUnitCount
        let pattern = text.utf8Start
        var i = start
        while i + count <= bytes.count {
            if bytes[i] == pattern[0] {
                var j = 1
                while j < count && bytes[i + j] == pattern[j] { j += 1 }
                if j == count { return i }
            }
            i += 1
        }
        return nil
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

    mutating func skipSpace() {
        while index < bytes.count && XMLPlistParser.isSpace(bytes[index]) { index += 1 }
    }

    /// Skips whitespace, comments and processing instructions (and one DOCTYPE where allowed). Any
    /// other text between elements is an error.
    mutating func skipMisc(allowDoctype: Bool) throws {
        while true {
            skipSpace()
            if startsWith("<!--") {
                guard let end = find("-->", from: index + 4) else { throw failure("unterminated comment") }
                index = end + 3
            } else if startsWith("<?") {
                guard let end = find("?>", from: index + 2) else { throw failure("unterminated processing instruction") }
                index = end + 2
            } else if allowDoctype && startsWith("<!DOCTYPE") {
                try skipDoctype()
            } else if index < bytes.count && bytes[index] != UInt8(ascii: "<") {
                throw failure("unexpected text between elements")
            } else {
                return
            }
        }
    }

    /// Skips `<!DOCTYPE …>` including an internal subset. Entities declared there are not expanded.
    mutating func skipDoctype() throws {
        let start = index
        var doctype = DoctypeEnd()
        index += 9
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            if doctype.ends(at: c) { return }
        }
        throw failure("unterminated DOCTYPE", at: start)
    }

    @inline(__always)
    static func isNameByte(_ c: UInt8) -> Bool {
        (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    }

    /// `<name attr="…" …>` or `<name …/>`; attributes are checked for form and ignored.
    mutating func startTag() throws -> StartTag {
        let offset = index
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw failure("expected an element") }
        index += 1
        let nameStart = index
        while index < bytes.count && XMLPlistParser.isNameByte(bytes[index]) { index += 1 }
        var name: String { String(decoding: bytes[nameStart..<index], as: UTF8.self) }
        guard let tag = Tag(UnsafeBufferPointer(rebasing: bytes[nameStart..<index])) else {
            throw failure(name.isEmpty ? "malformed tag" : "unknown element <\(name)>", at: offset)
        }
        while true {
            let hadSpace = index < bytes.count && XMLPlistParser.isSpace(bytes[index])
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated <\(name)> tag", at: offset) }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                return StartTag(tag: tag, isEmpty: false, offset: offset)
            }
            if startsWith("/>") {
                index += 2
                return StartTag(tag: tag, isEmpty: true, offset: offset)
            }
            guard hadSpace else { throw failure("malformed <\(name)> tag", at: offset) }
            try skipAttribute()
        }
    }

    mutating func skipAttribute() throws {
        let start = index
        while index < bytes.count && XMLPlistParser.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw failure("malformed attribute") }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw failure("attribute without a value") }
        index += 1
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw failure("attribute value is not quoted")
        }
        let quote = bytes[index]
        index += 1
        while index < bytes.count && bytes[index] != quote {
            guard bytes[index] != UInt8(ascii: "<") else { throw failure("'<' inside an attribute value") }
            index += 1
        }
        guard index < bytes.count else { throw failure("unterminated attribute value", at: start) }
        index += 1
    }

    /// `</name>` for the element being closed.
    mutating func endTag(_ tag: Tag) throws {
        let name = tag.name
        let length = name.utf8CodeUnitCount
        if index + length + 3 <= bytes.count, bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "/"),
            memcmp(bytes.baseAddress! + index + 2, name.utf8Start, length) == 0, bytes[index + 2 + length] == UInt8(ascii: ">")
        {
            index += length + 3
            return
        }
        let offset = index
        guard startsWith("</") else { throw failure("expected </\(tag.rawValue)>") }
        index += 2
        let nameStart = index
        while index < bytes.count && XMLPlistParser.isNameByte(bytes[index]) { index += 1 }
        let nameEnd = index
        skipSpace()
        guard Tag(UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd])) == tag,
            index < bytes.count, bytes[index] == UInt8(ascii: ">")
        else {
            throw failure("expected </\(tag.rawValue)>, found </\(String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self))>", at: offset)
        }
        index += 1
    }
}

/// Finds the `>` that ends a `<!DOCTYPE …>` fed byte by byte after `<!DOCTYPE`: one outside quotes
/// and outside the internal subset's brackets. (The in-memory parser and the streaming lookup share it.)
struct DoctypeEnd {
    var quote: UInt8 = 0
    var brackets = 0

    mutating func ends(at c: UInt8) -> Bool {
        if quote != 0 {
            if c == quote { quote = 0 }
        } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            quote = c
        } else if c == UInt8(ascii: "[") {
            brackets += 1
        } else if c == UInt8(ascii: "]") {
            brackets -= 1
        } else if c == UInt8(ascii: ">") && brackets <= 0 {
            return true
        }
        return false
    }
}
