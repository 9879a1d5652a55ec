/// Writes a dump as it goes: the typed-JSON document, laid out exactly as `TypedJSON.encode` lays
/// it out (so a dump is a typed-JSON document any prefs reads), handed to `sink` in pieces — each
/// suite entry as it is written, and an external string or data value piece by piece as its blob is
/// read, so no value is ever held whole to be dumped.
struct DumpWriter {
    private var writer: JSONWriter
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    /// Whether the object open at each depth has had a member yet.
    private var hasMembers: [Bool] = []

    init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        writer = JSONWriter(pretty: true, format: .typedJSON)
        writer.inlineScalarNodes = true
        // Suite values sit 3 levels (7 JSON levels) below the root: each may nest as deep as a suite's.
        writer.maxDepth = JSONParser.maxDepth + 8
        self.sink = sink
    }

    /// The JSON depth of what is written next.
    var depth: Int { hasMembers.count }

    /// Hands over what is written so far.
    mutating func flush() throws {
        guard !writer.out.isEmpty else { return }
        try writer.out.withUnsafeBytes(sink)
        writer.out.removeAll(keepingCapacity: true)
    }

    mutating func openObject() {
        writer.out.append(UInt8(ascii: "{"))
        hasMembers.append(false)
    }

    /// `"key": ` inside the innermost open object.
    mutating func key(_ key: String) {
        if hasMembers[hasMembers.count - 1] { writer.out.append(UInt8(ascii: ",")) }
        hasMembers[hasMembers.count - 1] = true
        writer.newline(hasMembers.count)
        writer.appendString(key)
        writer.out.append(contentsOf: Array(": ".utf8))
    }

    mutating func closeObject() {
        let hadMembers = hasMembers.removeLast()
        if hadMembers { writer.newline(hasMembers.count) }
        writer.out.append(UInt8(ascii: "}"))
    }

    /// `{"TYPE": ` … `}` around a value written by the caller: the typed node of a dictionary.
    mutating func openNode(_ type: String) {
        openObject()
        key(type)
    }

    /// A value as plain JSON (the typed-JSON marker's version).
    mutating func plain(_ value: PrefValue) throws {
        try writer.write(value, depth: depth)
    }

    /// A value's typed node, whole.
    mutating func node(_ value: PrefValue) throws {
        try writer.write(try TypedJSON.node(value, depth: 0), depth: depth)
    }

    /// An external string's or data value's node, its bytes streamed from `chunks` (called with a
    /// handler for each piece): `{"string": "…"}` with JSON escapes, `{"data": "…"}` in base64 — the
    /// bytes `node` would write for the whole value.
    mutating func streamedNode(_ kind: ExternalReference.Kind, _ chunks: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        writer.out.append(contentsOf: Array((kind == .data ? #"{"data": ""# : #"{"string": ""#).utf8))
        var base64 = Base64Stream()
        try chunks { piece in
            if kind == .data { base64.feed(piece, into: &writer.out) } else { JSONWriter.appendEscaped(piece, into: &writer.out) }
            try flush()
        }
        base64.finish(into: &writer.out)
        writer.out.append(contentsOf: Array(#""}"#.utf8))
    }

    /// The end of the document.
    mutating func finish() throws {
        writer.out.append(0x0A)
        try flush()
    }
}

/// Base64 of bytes that arrive in pieces: up to two bytes wait for the next piece.
struct Base64Stream {
    private var carry: [UInt8] = []

    mutating func feed(_ piece: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var bytes = carry
        bytes.append(contentsOf: piece)
        let whole = bytes.count / 3 * 3
        Base64.encode(Array(bytes[..<whole]), into: &out)
        carry = Array(bytes[whole...])
    }

    mutating func finish(into out: inout [UInt8]) {
        Base64.encode(carry, into: &out)
        carry = []
    }
}
