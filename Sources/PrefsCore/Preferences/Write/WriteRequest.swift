/// The words after `write DOMAIN` (or `register DOMAIN`), in `defaults` syntax, turned into typed
/// changes before anything is touched:
///
///     KEY VALUE                      a string (or, when VALUE starts with ( { or <, the property
///                                    list it spells, as defaults reads it)
///     KEY -string|-int|-integer|-float|-bool|-boolean|-date|-data|-json VALUE
///     KEY -data @FILE | -string-file FILE   the bytes (or UTF-8 text) of FILE, or of standard input
///                                    for `@-` / `-`, streamed when the change runs
///     KEY -int-add|-float-add N      add N to the stored number (missing: 0)
///     KEY -json @FILE                the JSON (or typed JSON) document in FILE (`@-`: standard input)
///     KEY -array|-array-add ITEM…    ITEM: VALUE, or a scalar flag and its VALUE
///     KEY -array-insert INDEX ITEM…  the items inserted before element INDEX of the stored array
///     KEY -dict|-dict-add K ITEM…
///     PLIST                          the whole domain, replaced
///
/// Several KEY groups may follow each other; `-array`, `-array-add`, `-dict` and `-dict-add` take
/// every word after them (`TypeFlag.all`).
package enum WriteRequest: Equatable, Sendable {
    case replaceDomain(PrefDictionary)
    case changes([Change])

    package struct Change: Equatable, Sendable {
        package enum Action: Equatable, Sendable {
            case set(PrefValue)
            case arrayAdd([PrefValue])
            /// Insert before element N of the stored array (N: its count appends).
            case arrayInsert(Int, [PrefValue])
            case dictAdd(PrefDictionary)
            /// Add to the stored number (`-int-add`, `-float-add`).
            case add(PrefValue)
            /// A value to be read from a file or standard input (`-`) when the change runs.
            case setFromFile(String, ExternalReference.Kind)
            /// A JSON (or typed JSON) document to be read from a file or standard input (`-`).
            case setFromJSONFile(String)
        }
        package let path: PrefKeyPath
        package let action: Action
        /// The type flag the value was given with (nil: untyped), which also types `--if-equals`.
        package var flag: String? = nil

        /// The `--if-equals` value, typed as this change's value is: with its scalar flag, as the
        /// counter's number type, or else as an untyped value (a string, or the property list it
        /// spells).
        package func expected(_ text: String, domain: String) throws -> PrefValue {
            try PrefsError.locating(domain: domain, key: path.display) {
                switch flag {
                case let flag? where TypeFlag.scalars.contains(flag): return try WriteRequest.typed(flag, text, label: "--if-equals")
                case "-int-add": return try ValueText.integer(text, flag: "--if-equals")
                case "-float-add": return try ValueText.real(text, flag: "--if-equals")
                default: return try WriteRequest.untyped(text)
                }
            }
        }
    }

    /// A KEY with no VALUE after it; `name=value` as one word is told the form that works.
    static func noValue(for key: String, domain: String) -> PrefsError {
        guard let equals = key.firstIndex(of: "="), equals != key.startIndex else {
            return PrefsError.usage("\(domain): no value for key \(key)")
        }
        let (name, value) = (key[..<equals], key[key.index(after: equals)...])
        return PrefsError.usage("\(domain): no value for key \(key) (KEY and VALUE are two words: \(name) \(value.isEmpty ? "''" : value))")
    }

    /// Parses the words; a bad word or value is an error naming the domain (and the key) it was for.
    package static func parse(_ words: ArraySlice<String>, domain: String) throws -> WriteRequest {
        if words.count == 1, let text = words.first {
            guard let first = text.first, "({<".contains(first) else { throw noValue(for: text, domain: domain) }
            guard case .dictionary(let contents) = try PrefsError.locating(domain: domain, { try ValueText.propertyList(text) }) else {
                throw PrefsError.invalidValue(domain: domain, key: nil, flag: nil, given: nil,
                                              reason: "a single argument after the domain must be a dictionary property list (or give KEY VALUE)")
            }
            return .replaceDomain(contents)
        }
        var rest = words
        var changes: [Change] = []
        while let key = rest.popFirst() {
            if TypeFlag.named(key) != nil {
                throw PrefsError.usage("\(domain): missing KEY before \(key) (a key spelled like a type flag is written as the key path :\(key))")
            }
            let path = try PrefKeyPath(argument: key, in: domain)
            guard let word = rest.popFirst() else { throw noValue(for: key, domain: domain) }
            let change = try PrefsError.locating(domain: domain, key: path.display) { try parseChange(path, word, &rest, domain: domain) }
            changes.append(change)
            if case .rest? = TypeFlag.named(word)?.takes { break }
        }
        return .changes(changes)
    }

    /// One KEY's change, from its first word after the key.
    static func parseChange(_ path: PrefKeyPath, _ word: String, _ rest: inout ArraySlice<String>, domain: String) throws -> Change {
        switch TypeFlag.named(word)?.takes {
        case .rest?:
            let action = try container(word, items: rest, domain: domain)
            rest = []
            return Change(path: path, action: action, flag: word)
        case .number?:
            guard let text = rest.popFirst() else { throw PrefsError.usage("\(domain): \(word) needs a number (key \(path.display))") }
            let amount = word == "-int-add" ? try ValueText.integer(text, flag: word) : try ValueText.real(text, flag: word)
            return Change(path: path, action: .add(amount), flag: word)
        case .file?:
            return try fileChange(path, word, source: rest.popFirst(), kind: .string, domain: domain)
        case .value? where word == "-data" && rest.first?.hasPrefix("@") == true:
            return try fileChange(path, word, source: rest.popFirst().map { String($0.dropFirst()) }, kind: .data, domain: domain)
        case .value? where word == "-json" && rest.first?.hasPrefix("@") == true:
            let source = rest.popFirst().map { String($0.dropFirst()) } ?? ""
            guard !source.isEmpty else { throw PrefsError.usage("\(domain): -json @FILE needs a file (key \(path.display))") }
            return Change(path: path, action: .setFromJSONFile(source), flag: word)
        default:
            return Change(path: path, action: .set(try value(word, &rest, key: path.display, domain: domain)), flag: TypeFlag.scalars.contains(word) ? word : nil)
        }
    }

    static func fileChange(_ path: PrefKeyPath, _ word: String, source: String?, kind: ExternalReference.Kind, domain: String) throws -> Change {
        guard let source, !source.isEmpty else { throw PrefsError.usage("\(domain): \(word) needs a file (key \(path.display))") }
        return Change(path: path, action: .setFromFile(source, kind), flag: kind == .data ? "-data" : "-string")
    }

    /// One value: `FLAG VALUE`, or an untyped VALUE.
    static func value(_ word: String, _ rest: inout ArraySlice<String>, key: String, domain: String) throws -> PrefValue {
        guard TypeFlag.scalars.contains(word) else { return try untyped(word, domain: domain) }
        guard let text = rest.popFirst() else { throw PrefsError.usage("\(domain): \(word) needs a value (key \(key))") }
        if (word == "-data" || word == "-json") && text.hasPrefix("@") {
            throw PrefsError.usage("\(domain): \(word) @FILE gives a key's whole value, not an item (key \(key))")
        }
        return try typed(word, text)
    }

    /// A value typed by `flag`; errors name it as `label` (the flag itself unless told).
    package static func typed(_ flag: String, _ text: String, label: String? = nil) throws -> PrefValue {
        let label = label ?? flag
        switch flag {
        case "-string": return .string(text)
        case "-int", "-integer": return try ValueText.integer(text, flag: label)
        case "-float": return try ValueText.real(text, flag: label)
        case "-bool", "-boolean": return try ValueText.bool(text, flag: label)
        case "-date": return try ValueText.date(text, flag: label)
        case "-data": return try ValueText.data(text, flag: label)
        default: return try ValueText.json(text, flag: label)
        }
    }

    /// A value without a type flag, read as `defaults` reads one (`untypedAsDefaults`), except that
    /// one starting with ( { or < may be any property list prefs reads (JSON too); a word that looks
    /// like a misspelt flag (`-boo`) is refused.
    package static func untyped(_ word: String, domain: String? = nil) throws -> PrefValue {
        if let first = word.first, "({<".contains(first) { return try ValueText.propertyList(word) }
        if word.count > 1, word.hasPrefix("-"), let second = word.dropFirst().first, second.isLetter {
            throw PrefsError.usage((domain.map { "\($0): " } ?? "") + "unknown type flag \(word) (to store text that starts with '-', write -string \(word))")
        }
        return try untypedAsDefaults(word)
    }

    /// The characters that make an untyped word property-list text for `defaults`.
    /// `"()[]{}<>` (a switch, not a `Set` literal: building a set's type at run time costs a write
    /// more than the whole check).
    static func isPropertyListCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\"", "(", ")", "[", "]", "{", "}", "<", ">": return true
        default: return false
        }
    }

    /// `defaults`' rule for an untyped word: one holding none of `"()[]{}<>` is read as a quoted
    /// old-style string, so its backslash escapes are decoded (`@\U21a9` is "@↩", `\n` a line
    /// break); any other is the old-style (or XML) property list it spells.
    static func untypedAsDefaults(_ word: String) throws -> PrefValue {
        let bare = !word.unicodeScalars.contains(where: isPropertyListCharacter)
        let bytes = Array((bare ? "\"" + word + "\"" : word).utf8)
        do {
            return try PropertyList.decode(bytes, as: !bare && PlistFormat.detect(bytes) == .xml ? .xml : .openStep)
        } catch let error as PrefsError {
            let rule = bare ? "is read as a quoted old-style string (as defaults reads it)"
                : "holds one of \"()[]{}<>, so it is read as a property list (as defaults reads it)"
            throw PrefsError.invalidValue(domain: nil, key: nil, flag: nil, given: word,
                                          reason: "\(rule), and \(error.reasonText); write -string to store it as it is")
        }
    }

    static func container(_ flag: String, items: ArraySlice<String>, domain: String) throws -> Change.Action {
        var rest = items
        // A flag that takes every word after it cannot start another KEY group inside this one.
        func item(_ word: String) throws -> String {
            if let other = TypeFlag.named(word), other.takes != .value {
                throw PrefsError.usage("\(domain): \(flag) takes every word after it, so \(word) is not a new KEY group but one of its items; "
                                       + "put the \(flag) group last, or write its KEY's value with -json")
            }
            return word
        }
        if flag.hasPrefix("-array") {
            var index = 0
            if flag == "-array-insert" {
                guard let word = rest.popFirst(), let number = Int(word), number >= 0, String(number) == word else {
                    throw PrefsError.usage("\(domain): -array-insert needs an INDEX (0, 1, ...) before its items")
                }
                index = number
            }
            var elements: [PrefValue] = []
            while let word = rest.popFirst() { elements.append(try value(try item(word), &rest, key: flag, domain: domain)) }
            switch flag {
            case "-array": return .set(.array(elements))
            case "-array-insert": return .arrayInsert(index, elements)
            default: return .arrayAdd(elements)
            }
        }
        var entries: [(String, PrefValue)] = []
        while let word = rest.popFirst() {
            // A key is read as a value is (as defaults reads it), and must be a string.
            guard case .string(let key) = try value(word, &rest, key: flag, domain: domain) else {
                throw PrefsError.usage("\(domain): \(flag) key \(word) is not a string")
            }
            guard !key.isEmpty, !key.utf8.contains(0) else { throw PrefsError.usage("\(domain): \(flag) key is empty") }
            guard let word = rest.popFirst() else { throw PrefsError.usage("\(domain): \(flag) key \(key) has no value") }
            entries.append((try item(key), try value(try item(word), &rest, key: key, domain: domain)))
        }
        let dictionary = PrefDictionary(entries)
        return flag == "-dict" ? .set(.dictionary(dictionary)) : .dictAdd(dictionary)
    }

    /// The top-level keys whose stored values the changes read (for external storage): those a change
    /// adds to, reaches into by a key path, or compares (`--if-equals`); none for plain sets.
    func keysRead(_ conditions: Conditions) -> KeySet {
        guard case .changes(let changes) = self else { return [] }
        return KeySet(changes.filter { change in
            if conditions.expected != nil || change.path.components.count > 1 { return true }
            switch change.action {
            case .set, .setFromFile, .setFromJSONFile: return false
            case .arrayAdd, .arrayInsert, .dictAdd, .add: return true
            }
        }.map(\.path.first))
    }

    /// The top-level keys the changes touch (nil when the whole domain is replaced).
    var topLevelKeys: KeySet? {
        guard case .changes(let changes) = self else { return nil }
        return KeySet(changes.map(\.path.first))
    }

    /// What a write may be told besides the values: skip keys already stored (`--if-absent`), or
    /// change only when the stored value equals one (`--if-equals`).
    package struct Conditions: Sendable {
        package var ifAbsent = false
        package var expected: PrefValue?

        package init(ifAbsent: Bool = false, expected: PrefValue? = nil) {
            self.ifAbsent = ifAbsent
            self.expected = expected
        }
    }
}
