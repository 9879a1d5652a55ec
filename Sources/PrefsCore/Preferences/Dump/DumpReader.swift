/// Reads a dump (a typed-JSON document) from a source of bytes in pieces — a file or standard input
/// — so that a document of any size is never held whole: the structure is followed token by token,
/// a string can be handed over piece by piece as it is decoded (`nextStringPiece`), and every other
/// value is taken as its JSON text (`rawValue`) for the JSON decoder to check and decode as usual.
struct DumpReader {
    private let read: (UnsafeMutableRawBufferPointer) throws -> Int
    private let name: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var position = 0
    private var count = 0
    private var ended = false
    /// Bytes consumed before the buffer's start, for messages.
    private var offset = 0
    /// Inside a string whose pieces `nextStringPiece` hands over.
    private(set) var inString = false
    private var validator = UTF8Validator()

    /// `read` fills a buffer and returns how many bytes came (0 at the end); `name` is the source in
    /// messages.
    init(name: String, read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.name = name
        self.read = read
    }

    func failure(_ reason: String) -> PrefsError {
        .malformed(source: name, format: .typedJSON, reason: "byte \(offset + position): \(reason)")
    }

    /// The next byte without taking it; nil at the end of the source.
    mutating func peek() throws -> UInt8? {
        if position == count {
            guard !ended else { return nil }
            offset += count
            position = 0
            count = try buffer.withUnsafeMutableBytes { try read($0) }
            if count == 0 {
                ended = true
                return nil
            }
        }
        return buffer[position]
    }

    mutating func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }

    mutating func skipSpace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    /// Takes `byte` after any space, or fails saying what was expected.
    mutating func expect(_ byte: UInt8, _ what: String) throws {
        try skipSpace()
        guard let found = try next() else { throw failure("the document ends where \(what) was expected") }
        guard found == byte else { throw failure("expected \(what)") }
    }

    /// After a member: true when another follows (`,`), false at the object's end (`}`).
    mutating func nextMember() throws -> Bool {
        try skipSpace()
        switch try next() {
        case UInt8(ascii: ","): return true
        case UInt8(ascii: "}"): return false
        case nil: throw failure("the document ends where , or } was expected")
        default: throw failure("expected , or }")
        }
    }

    /// `{`, then true when the object has a first member (false for `{}`).
    mutating func openObject() throws -> Bool {
        try expect(UInt8(ascii: "{"), "{")
        try skipSpace()
        guard try peek() == UInt8(ascii: "}") else { return true }
        position += 1
        return false
    }

    /// A member's key and the `:` after it.
    mutating func memberKey() throws -> String {
        try skipSpace()
        let key = try string()
        try expect(UInt8(ascii: ":"), ":")
        return key
    }

    /// What is held in memory of a dump at once (a name, a value that is not streamed) is at most
    /// this, as a document read whole is.
    static let maximumHeld = DocumentInput.maximumSize

    /// Fails when `count` bytes are more than a dump may have held at once.
    func checkHeld(_ count: Int) throws {
        guard count <= DumpReader.maximumHeld else { throw failure("a value larger than \(DumpReader.maximumHeld >> 20) MiB held in memory") }
    }

    /// A whole string, as a key or a name is.
    mutating func string() throws -> String {
        try openString()
        var bytes: [UInt8] = []
        while let piece = try nextStringPiece() {
            bytes += piece
            try checkHeld(bytes.count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Takes the opening quote of a string whose pieces `nextStringPiece` then hands over.
    mutating func openString() throws {
        try expect(UInt8(ascii: "\""), "a string")
        inString = true
        validator = UTF8Validator()
    }

    /// The next piece of the open string, decoded (escapes resolved, checked as UTF-8); nil once its
    /// closing quote is taken.
    mutating func nextStringPiece() throws -> [UInt8]? {
        guard inString else { return nil }
        guard let byte = try peek() else { throw failure("the document ends inside a string") }
        var piece: [UInt8]
        switch byte {
        case UInt8(ascii: "\""):
            position += 1
            inString = false
            guard validator.finish() else { throw failure("a string is not UTF-8") }
            return nil
        case UInt8(ascii: "\\"):
            position += 1
            piece = try escape()
        case 0..<0x20:
            throw failure("a control character in a string must be escaped")
        default:
            var end = position
            while end < count, buffer[end] != UInt8(ascii: "\""), buffer[end] != UInt8(ascii: "\\"), buffer[end] >= 0x20 { end += 1 }
            piece = Array(buffer[position..<end])
            position = end
        }
        guard piece.withUnsafeBytes({ validator.feed($0) }) else { throw failure("a string is not UTF-8") }
        return piece
    }

    /// The bytes of one escape (after its backslash), a surrogate pair of `\u` escapes included.
    mutating func escape() throws -> [UInt8] {
        guard let byte = try next() else { throw failure("the document ends inside a string") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [byte]
        case UInt8(ascii: "b"): return [0x08]
        case UInt8(ascii: "f"): return [0x0C]
        case UInt8(ascii: "n"): return [0x0A]
        case UInt8(ascii: "r"): return [0x0D]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else { throw failure("a lone surrogate escape") }
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else { throw failure("a lone surrogate escape") }
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw failure("a lone surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("a bad \\u escape") }
            return Array(String(Character(unicode)).utf8)
        default:
            throw failure("an unknown escape \\\(Character(Unicode.Scalar(byte)))")
        }
    }

    mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try next(), let digit = NumberText.digitValue(byte) else { throw failure("a bad \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The JSON text of the next value, whatever it is, for the JSON decoder (which checks it): a
    /// string, a container (to its matching end, strings skipped over) or a literal or number (to the
    /// next delimiter).
    mutating func rawValue() throws -> [UInt8] {
        try skipSpace()
        var text: [UInt8] = []
        var depth = 0
        var quoted = false
        var escaped = false
        while let byte = try peek() {
            if text.count > DumpReader.maximumHeld { try checkHeld(text.count) }
            if quoted {
                text.append(byte)
                position += 1
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                    if depth == 0 { return text }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): quoted = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // At depth 0 it closes the object around the value: a literal or number has ended.
                guard depth > 0 else { return text }
                depth -= 1
                text.append(byte)
                position += 1
                if depth == 0 { return text }
                continue
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return text }
            default: break
            }
            text.append(byte)
            position += 1
        }
        guard !text.isEmpty, depth == 0, !quoted else { throw failure("the document ends inside a value") }
        return text
    }

    /// After the document: nothing but space.
    mutating func end() throws {
        try skipSpace()
        guard try peek() == nil else { throw failure("more after the document") }
    }
}
