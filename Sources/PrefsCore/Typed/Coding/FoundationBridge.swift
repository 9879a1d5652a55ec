import Glibc
import Synchronization

/// Foundation's `Date`, `Data` and `URL`, recognised by their type's name (this module does not
/// import Foundation), stored as Foundation's `UserDefaults` stores them, whatever their own
/// `Codable` writes:
/// - a `Date` (whose `Codable` writes a `Double`, seconds since 2001) as a date;
/// - `Data` (an array of bytes) as data;
/// - a `URL` (a dictionary `{relative, base}`) that is a whole stored value as a string: a file
///   URL as its path — what `UserDefaults.set(_:forKey:)` stores and `url(forKey:)` reads, a
///   leading `~` expanded — any other as its URL string. A URL relative to a base that cannot be
///   joined here (the base does not end in `/`, or the relative part has a scheme, `..`, a
///   query…) keeps the dictionary. Inside another value a URL keeps its own dictionary, as
///   Foundation's `PropertyListEncoder` writes it (`PrefValueEncoder`); either form reads back.
enum FoundationBridge {
    case date
    case data
    case url

    /// The bridge of `type`, if it is one of them: its name is looked at once per type (spelling a
    /// type's name takes about a microsecond, more than a cached read).
    init?(_ type: Any.Type) {
        let identifier = ObjectIdentifier(type)
        if let known = FoundationBridge.known.withLock({ $0[identifier] }) {
            guard let known else { return nil }
            self = known
            return
        }
        let bridge: FoundationBridge?
        switch String(reflecting: type) {
        case "Foundation.Date", "FoundationEssentials.Date": bridge = .date
        case "Foundation.Data", "FoundationEssentials.Data": bridge = .data
        case "Foundation.URL", "FoundationEssentials.URL": bridge = .url
        default: bridge = nil
        }
        FoundationBridge.known.withLock { $0[identifier] = .some(bridge) }
        guard let bridge else { return nil }
        self = bridge
    }

    /// The types looked at so far, and their bridges (nil: none).
    private static let known = Mutex<[ObjectIdentifier: FoundationBridge?]>([:])

    /// What a stored value of this type is, for a mismatch's message.
    var expected: String {
        switch self {
        case .date: return "a date"
        case .data: return "data"
        case .url: return "a URL (a string)"
        }
    }

    /// The date, data or string a `Date`'s, `Data`'s or `URL`'s own encoding (`encoded`) stands for.
    func prefValue(from encoded: PrefValue?, path: [any CodingKey]) throws -> PrefValue {
        switch (self, encoded) {
        case (.date, .real(let seconds)?): return .date(PrefDate(secondsSinceReferenceDate: seconds))
        case (.date, .integer(let seconds)?): return .date(PrefDate(secondsSinceReferenceDate: Double(seconds)))
        case (.data, .array(let elements)?):
            return .data(try elements.map {
                guard case .integer(let byte) = $0, let value = UInt8(exactly: byte) else {
                    throw PrefCodingError(path: path, reason: "Data encoded something other than bytes")
                }
                return value
            })
        case (.url, .dictionary(let parts)?):
            guard case .string(let relative)? = parts["relative"] else { break }
            guard let base = parts["base"] else { return .string(URLText.stored(relative)) }
            guard let baseText = URLText.absolute(base), let joined = URLText.joined(relative, to: baseText) else {
                return .dictionary(parts)
            }
            return .string(URLText.stored(joined))
        default: break
        }
        throw PrefCodingError(path: path, reason: "\(self) encoded itself in an unknown form")
    }

    /// What a `Date`'s, `Data`'s or `URL`'s own decoding expects in place of a stored value.
    func encodedForm(of value: PrefValue) -> PrefValue? {
        switch (self, value) {
        case (.date, .date(let date)): return .real(date.secondsSinceReferenceDate)
        case (.data, .data(let bytes)): return .array(bytes.map { .integer(Int64($0)) })
        case (.url, .string(let text)): return .dictionary(["relative": .string(URLText.urlString(text))])
        case (.url, .dictionary(let parts)) where parts["relative"] != nil: return value
        default: return nil
        }
    }
}

/// URL strings and the file paths `UserDefaults` keeps for file URLs, without Foundation.
enum URLText {
    /// How a URL string is stored: a `file:` URL (no host, or `localhost`; no query or fragment) as
    /// its path, percent-decoded; anything else as it is.
    static func stored(_ url: String) -> String {
        var rest = Substring(url)
        guard rest.hasPrefix("file://") else { return url }
        rest = rest.dropFirst(7)
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/"), !rest.contains("?"), !rest.contains("#"), let path = percentDecoded(rest) else { return url }
        return path
    }

    /// The URL string a stored string stands for: a path (`/…`, or `~/…` with `$HOME`) as a `file:`
    /// URL, anything else as it is.
    static func urlString(_ stored: String) -> String {
        var path = stored
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            path = home + path.dropFirst()
        }
        guard path.hasPrefix("/") else { return stored }
        return "file://" + percentEncoded(path)
    }

    /// The URL string of a base URL as its own encoding left it: `{relative = URL; }` (no base of
    /// its own), or a stored string; nil for anything else.
    static func absolute(_ base: PrefValue) -> String? {
        switch base {
        case .string(let text): return urlString(text)
        case .dictionary(let parts) where parts.count == 1:
            guard case .string(let text)? = parts["relative"] else { return nil }
            return text
        default: return nil
        }
    }

    /// `relative` joined to `base` in the one simple case: a base ending in `/`, and a relative
    /// reference that is a plain relative path (no scheme, no leading `/`, no `.` or `..` segment,
    /// no query or fragment); nil otherwise.
    static func joined(_ relative: String, to base: String) -> String? {
        guard base.hasSuffix("/"), !relative.isEmpty, !relative.hasPrefix("/"),
              !relative.contains(where: { ":?#".contains($0) }) else { return nil }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        return base + relative
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = text.utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard rest.count >= 2, let code = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(code)
            rest = rest.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The path with every byte but the unreserved ones, `/` and the sub-delimiters Foundation's
    /// file URLs keep as they are, percent-encoded.
    static func percentEncoded(_ path: String) -> String {
        let kept = Set("/-._~!$&'()*+,=:@".utf8), digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in path.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            if isAlphanumeric || kept.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
