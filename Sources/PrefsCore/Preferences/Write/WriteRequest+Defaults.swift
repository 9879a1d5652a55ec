/// `defaults write DOMAIN …` as macOS `defaults` reads its words, for the `defaults` personality:
///
///     KEY VALUE                 one key; VALUE as below; a word after it is an error
///     PLIST                     the whole domain, replaced (it must be a dictionary)
///
///     VALUE: -string S | -data HEX | -int N | -integer N | -float X | -bool B | -boolean B | -date D
///            | -array ITEM… | -array-add ITEM… | -dict KEY ITEM… | -dict-add KEY ITEM… | WORD
///
/// KEY is literal (no key paths); the containers take every word after them, and their items (and
/// dictionary keys) are scalar VALUEs. A WORD is read as `untypedAsDefaults` reads it (a bare word is
/// a quoted old-style string; one holding `"()[]{}<>` an old-style or XML property list). `-float` is
/// rounded to 32 bits, `-int` clamped to 64, `-data` may have an odd number of digits (the first is
/// half a byte). prefs's own flags (`-json`, `-int-add`…) are plain words here, as in `defaults`.
///
/// Where `defaults` would store 0 for a number it cannot read (`-int abc`, `-float 1x`), prefs
/// refuses the write.
package enum DefaultsSyntaxError: Error, Equatable, Sendable {
    /// `defaults` prints its usage (exit 255): a missing word, a bad `-bool`, `-data` or `-date`.
    case usage
    /// `defaults` prints this message and exits 1.
    case message(String)
}

extension WriteRequest {
    static let defaultsScalars: Set<String> = ["-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean", "-date"]
    static let defaultsContainers: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]

    /// Parses the words after `defaults write DOMAIN`; throws `DefaultsSyntaxError` (or PrefsError
    /// for nothing: every failure is one of `defaults`' own).
    package static func parseDefaults(_ words: ArraySlice<String>) throws(DefaultsSyntaxError) -> WriteRequest {
        guard let first = words.first else { throw .usage }
        if words.count == 1 {
            guard case .dictionary(let contents) = try defaultsWord(first) else {
                throw .message("\nRep argument is not a dictionary\nDefaults have not been changed.\n")
            }
            return .replaceDomain(contents)
        }
        var rest = words.dropFirst()
        let flag = rest.first.flatMap { defaultsScalars.contains($0) || defaultsContainers.contains($0) ? $0 : nil }
        let action = try defaultsValue(&rest, compositesAllowed: true)
        if let extra = rest.first { throw .message("Unexpected argument \(extra); leaving defaults unchanged.") }
        return .changes([Change(path: PrefKeyPath([first]), action: action, flag: flag)])
    }

    /// One VALUE (and for a container, every word after it).
    static func defaultsValue(_ rest: inout ArraySlice<String>, compositesAllowed: Bool) throws(DefaultsSyntaxError) -> Change.Action {
        guard let token = rest.popFirst() else { throw .usage }
        if defaultsContainers.contains(token) {
            guard compositesAllowed else { throw .message("Cannot nest composite types (arrays and dictionaries); exiting") }
            return try defaultsContainer(token, &rest)
        }
        guard defaultsScalars.contains(token) else { return .set(try defaultsWord(token)) }
        guard let text = rest.popFirst() else { throw .usage }
        switch token {
        case "-string": return .set(.string(text))
        case "-data":
            guard let bytes = defaultsHex(text) else { throw .usage }
            return .set(.data(bytes))
        case "-int", "-integer":
            guard let value = defaultsInteger(text) else {
                throw .message("\(token) \(text): not a decimal integer (defaults would store 0); leaving defaults unchanged.")
            }
            return .set(.integer(value))
        case "-float":
            guard let value = NumberText.real(text.utf8, allowNamedValues: true) else {
                throw .message("-float \(text): not a number (defaults would store 0); leaving defaults unchanged.")
            }
            return .set(.real(Double(Float(value))))
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "yes", "true": return .set(.bool(true))
            case "no", "false": return .set(.bool(false))
            default: throw .usage
            }
        default:
            guard let date = PrefDate(iso8601: text) else { throw .usage }
            return .set(.date(date))
        }
    }

    static func defaultsContainer(_ flag: String, _ rest: inout ArraySlice<String>) throws(DefaultsSyntaxError) -> Change.Action {
        if flag.hasPrefix("-array") {
            var elements: [PrefValue] = []
            while !rest.isEmpty { elements.append(try defaultsItem(&rest)) }
            return flag == "-array" ? .set(.array(elements)) : .arrayAdd(elements)
        }
        var entries: [(String, PrefValue)] = []
        while !rest.isEmpty {
            guard case .string(let key) = try defaultsItem(&rest) else { throw .message("Dictionary keys must be strings") }
            guard !rest.isEmpty else { throw .message("Key \(key) lacks a corresponding value") }
            entries.append((key, try defaultsItem(&rest)))
        }
        let dictionary = PrefDictionary(entries)
        return flag == "-dict" ? .set(.dictionary(dictionary)) : .dictAdd(dictionary)
    }

    static func defaultsItem(_ rest: inout ArraySlice<String>) throws(DefaultsSyntaxError) -> PrefValue {
        guard case .set(let value) = try defaultsValue(&rest, compositesAllowed: false) else { throw .usage }
        return value
    }

    /// An untyped word, or the message `defaults` prints when it does not parse (naming the text it
    /// parsed: the word, in quotes when it holds none of `"()[]{}<>`).
    static func defaultsWord(_ word: String) throws(DefaultsSyntaxError) -> PrefValue {
        do {
            return try untypedAsDefaults(word)
        } catch {
            let quoted = word.unicodeScalars.contains(where: isPropertyListCharacter) ? word : "\"" + word + "\""
            throw .message("Could not parse: \(quoted).  Try single-quoting it.")
        }
    }

    /// `-int`: an optional sign and decimal digits (spaces around them allowed), clamped to 64 bits
    /// as `longLongValue` clamps; nil for anything else.
    static func defaultsInteger(_ text: String) -> Int64? {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }
        var bytes = ArraySlice(text.utf8).drop(while: isSpace)
        while let last = bytes.last, isSpace(last) { bytes = bytes.dropLast() }
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var magnitude: UInt64 = 0
        for digit in bytes {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit - 0x30))
            if overflow1 || overflow2 { return negative ? .min : .max }
            magnitude = sum
        }
        if negative { return magnitude > UInt64(Int64.max) ? .min : -Int64(magnitude) }
        return magnitude > UInt64(Int64.max) ? .max : Int64(magnitude)
    }

    /// `-data`: hexadecimal digits; an odd count makes the first digit a byte of its own.
    static func defaultsHex(_ text: String) -> [UInt8]? {
        let digits = text.utf8.map { NumberText.digitValue($0).map(UInt8.init) }
        guard !digits.contains(nil) else { return nil }
        var values = digits.map { $0! }
        var bytes: [UInt8] = []
        if values.count % 2 == 1 { bytes.append(values.removeFirst()) }
        for i in stride(from: 0, to: values.count, by: 2) { bytes.append(values[i] << 4 | values[i + 1]) }
        return bytes
    }
}

extension String {
    /// A decoder's reason without its leading `line L, column C: ` (a position in text the user did
    /// not type).
    var afterPosition: String {
        guard hasPrefix("line "), let colon = firstIndex(of: ":"), let second = self[index(after: colon)...].firstIndex(of: ":") else { return self }
        return String(self[index(after: second)...].drop { $0 == " " })
    }
}

extension PrefsError {
    /// What went wrong, in words, for a message that embeds this error in another's reason.
    var reasonText: String {
        switch self {
        case .malformed(_, let format, let reason): return (format.map { $0.displayName + ": " } ?? "") + reason.afterPosition
        case .invalidDocument(_, _, _, let error): return error.reasonText
        case .invalidValue(_, _, _, _, let reason): return reason
        default: return "\(self)"
        }
    }
}
