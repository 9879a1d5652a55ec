/// The serializations prefs reads and writes.
public enum PlistFormat: String, CaseIterable, Sendable {
    case binary
    case xml
    case openStep = "openstep"
    case json
    /// prefs' lossless JSON: every value tagged with its type (see `TypedJSON`).
    case typedJSON = "typed-json"

    public var displayName: String {
        switch self {
        case .binary: return "binary plist"
        case .xml: return "XML plist"
        case .openStep: return "OpenStep plist"
        case .json: return "JSON"
        case .typedJSON: return "typed JSON"
        }
    }

    /// The format of a document, judged by content alone (never by file name); nil when the document
    /// is empty or only whitespace. JSON and typed JSON are told apart after decoding.
    package static func detect(_ bytes: [UInt8]) -> PlistFormat? {
        bytes.withUnsafeBufferPointer(detect)
    }

    package static func detect(_ bytes: UnsafeBufferPointer<UInt8>) -> PlistFormat? {
        FormatSniffer(bytes: bytes).format()
    }
}

struct FormatSniffer {
    let bytes: UnsafeBufferPointer<UInt8>

    static let xmlTags: [[UInt8]] = ["plist", "dict", "array", "key", "string", "integer", "real", "true",
                                     "false", "date", "data"].map { Array($0.utf8) }

    func format() -> PlistFormat? {
        if bytes.starts(with: "bplist".utf8) { return .binary }
        var i = skipSpace(from: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "<"):
            return looksLikeXMLTag(at: i + 1) ? .xml : .openStep
        case UInt8(ascii: "["):
            return .json
        case UInt8(ascii: "{"):
            i = skipSpace(from: i + 1)
            guard i < bytes.count else { return .openStep }
            if bytes[i] == UInt8(ascii: "}") { return .json }
            guard bytes[i] == UInt8(ascii: "\"") else { return .openStep }
            let after = skipSpace(from: endOfQuoted(from: i))
            return after < bytes.count && bytes[after] == UInt8(ascii: ":") ? .json : .openStep
        case UInt8(ascii: "\""):
            let after = skipSpace(from: endOfQuoted(from: i))
            if after < bytes.count && (bytes[after] == UInt8(ascii: "=") || bytes[after] == UInt8(ascii: ";")) {
                return .openStep
            }
            return .json
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .json
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            for literal in ["true", "false", "null"] where bytes[i...].starts(with: literal.utf8) {
                if skipSpace(from: i + literal.utf8.count) == bytes.count { return .json }
            }
            return .openStep
        default:
            return .openStep
        }
    }

    func skipSpace(from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D {
            i += 1
        }
        return i
    }

    /// The index after the closing quote of the string starting at `start` (or the end).
    func endOfQuoted(from start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return bytes.count
    }

    func looksLikeXMLTag(at start: Int) -> Bool {
        guard start < bytes.count else { return false }
        if bytes[start] == UInt8(ascii: "?") || bytes[start] == UInt8(ascii: "!") { return true }
        var end = start
        while end < bytes.count, (bytes[end] | 0x20) >= UInt8(ascii: "a") && (bytes[end] | 0x20) <= UInt8(ascii: "z") {
            end += 1
        }
        guard end < bytes.count, FormatSniffer.xmlTags.contains(where: { bytes[start..<end].elementsEqual($0) })
        else { return false }
        let next = bytes[end]
        return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 0x20 || next == 0x09
            || next == 0x0A || next == 0x0D
    }
}
