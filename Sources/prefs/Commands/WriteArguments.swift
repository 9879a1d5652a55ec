import PrefsCore

/// The words after `write DOMAIN`, in `defaults` syntax, turned into changes before any file is
/// touched:
///
///     KEY VALUE                      a string (or, when VALUE starts with ( { or <, the property
///                                    list it spells, as defaults reads it)
///     KEY -string|-int|-integer|-float|-bool|-boolean|-date|-data|-json VALUE
///     KEY -data @FILE | -string-file FILE   the bytes (or UTF-8 text) of FILE, or of standard input
///                                    for `@-` / `-`, streamed (`WriteCommand` reads them)
///     KEY -int-add|-float-add N      add N to the stored number (missing: 0)
///     KEY -array|-array-add ITEM…    ITEM: VALUE, or a scalar flag and its VALUE
///     KEY -dict|-dict-add K ITEM…
///     PLIST                          the whole domain, replaced
///
/// Several KEY groups may follow each other; `-array`, `-array-add`, `-dict` and `-dict-add` take
/// every word after them.
enum WriteRequest: Equatable {
    case replaceDomain(PrefDictionary)
    case changes([Change])

    struct Change: Equatable {
        enum Action: Equatable {
            case set(PrefValue)
            case arrayAdd([PrefValue])
            case dictAdd(PrefDictionary)
            /// Add to the stored number (`-int-add`, `-float-add`).
            case add(PrefValue)
            /// A value to be read from a file or standard input (`-`) before the change runs.
            case setFromFile(String, ExternalReference.Kind)
        }
        let path: KeyPath
        let action: Action
        /// The type flag the value was given with (nil: untyped), which also types `--if-equals`.
        var flag: String? = nil

        /// The `--if-equals` value, typed as this change's value is: with its scalar flag, as the
        /// counter's number type, or else as an untyped value (a string, or the property list it
        /// spells).
        func expected(_ text: String) throws -> PrefValue {
            switch flag {
            case let flag? where WriteRequest.scalarFlags.contains(flag): return try WriteRequest.typed(flag, text, label: "--if-equals")
            case "-int-add": return try ValueText.integer(text, flag: "--if-equals")
            case "-float-add": return try ValueText.real(text, flag: "--if-equals")
            default: return try WriteRequest.untyped(text)
            }
        }
    }

    static let scalarFlags: Set<String> = ["-string", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-data", "-json"]
    static let containerFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]
    static let counterFlags: Set<String> = ["-int-add", "-float-add"]
    static let fileFlag = "-string-file"

    /// Parses the words; a bad value or word is reported naming the domain (and the key) it was for.
    static func parse(_ words: ArraySlice<String>, domain: String) throws -> WriteRequest {
        do {
            return try parse(words)
        } catch PrefsError.invalidValue(let message) {
            throw PrefsError.invalidValue("\(domain): \(message)")
        } catch PrefsError.usage(let message) {
            throw PrefsError.usage("\(domain): \(message)")
        }
    }

    static func parse(_ words: ArraySlice<String>) throws -> WriteRequest {
        if words.count == 1, let text = words.first {
            guard let first = text.first, "({<".contains(first) else { throw PrefsError.usage("no value for key \(text)") }
            guard case .dictionary(let contents) = try ValueText.propertyList(text) else {
                throw PrefsError.invalidValue("a single argument after the domain must be a dictionary property list (or give KEY VALUE)")
            }
            return .replaceDomain(contents)
        }
        var rest = words
        var changes: [Change] = []
        while let key = rest.popFirst() {
            let path = try KeyPath(argument: key)
            guard let word = rest.popFirst() else { throw PrefsError.usage("no value for key \(key)") }
            do {
                if containerFlags.contains(word) {
                    changes.append(Change(path: path, action: try container(word, items: rest), flag: word))
                    break
                }
                if counterFlags.contains(word) {
                    guard let text = rest.popFirst() else { throw PrefsError.usage("\(word) needs a number (key \(key))") }
                    let amount = word == "-int-add" ? try ValueText.integer(text, flag: word) : try ValueText.real(text, flag: word)
                    changes.append(Change(path: path, action: .add(amount), flag: word))
                    continue
                }
                if word == fileFlag || (word == "-data" && rest.first?.hasPrefix("@") == true) {
                    guard let source = rest.popFirst() else { throw PrefsError.usage("\(word) needs a file (key \(key))") }
                    let kind: ExternalReference.Kind = word == fileFlag ? .string : .data
                    let file = kind == .data ? String(source.dropFirst()) : source
                    guard !file.isEmpty else { throw PrefsError.usage("\(word) needs a file (key \(key))") }
                    changes.append(Change(path: path, action: .setFromFile(file, kind), flag: kind == .data ? "-data" : "-string"))
                    continue
                }
                let flag = scalarFlags.contains(word) ? word : nil
                changes.append(Change(path: path, action: .set(try value(word, &rest, key: key)), flag: flag))
            } catch PrefsError.invalidValue(let message) {
                throw PrefsError.invalidValue("\(path.display): \(message)")
            }
        }
        return .changes(changes)
    }

    /// One value: `FLAG VALUE`, or an untyped VALUE.
    static func value(_ word: String, _ rest: inout ArraySlice<String>, key: String) throws -> PrefValue {
        guard scalarFlags.contains(word) else { return try untyped(word) }
        guard let text = rest.popFirst() else { throw PrefsError.usage("\(word) needs a value (key \(key))") }
        if word == "-data" && text.hasPrefix("@") { throw PrefsError.usage("-data @FILE gives a key's whole value, not an item (key \(key))") }
        return try typed(word, text)
    }

    /// A value typed by `flag`; errors name it as `label` (the flag itself unless told).
    static func typed(_ flag: String, _ text: String, label: String? = nil) throws -> PrefValue {
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

    /// A value without a type flag is a string, as in defaults; one starting with ( { or < is the
    /// property list it spells. A word that looks like a misspelt flag is refused.
    static func untyped(_ word: String) throws -> PrefValue {
        if let first = word.first, "({<".contains(first) { return try ValueText.propertyList(word) }
        if word.count > 1, word.hasPrefix("-"), let second = word.dropFirst().first, second.isLetter {
            throw PrefsError.usage("unknown type flag \(word) (to store text that starts with '-', write -string \(word))")
        }
        return .string(word)
    }

    static func container(_ flag: String, items: ArraySlice<String>) throws -> Change.Action {
        var rest = items
        if flag.hasPrefix("-array") {
            var elements: [PrefValue] = []
            while let word = rest.popFirst() { elements.append(try value(word, &rest, key: flag)) }
            return flag == "-array" ? .set(.array(elements)) : .arrayAdd(elements)
        }
        var entries: [(String, PrefValue)] = []
        while let key = rest.popFirst() {
            guard !key.isEmpty, !key.utf8.contains(0) else { throw PrefsError.usage("\(flag) key is empty") }
            guard let word = rest.popFirst() else { throw PrefsError.usage("\(flag) key \(key) has no value") }
            entries.append((key, try value(word, &rest, key: key)))
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
            case .set, .setFromFile: return false
            case .arrayAdd, .dictAdd, .add: return true
            }
        }.map(\.path.first))
    }

    /// The top-level keys the changes touch (nil when the whole domain is replaced).
    var topLevelKeys: KeySet? {
        guard case .changes(let changes) = self else { return nil }
        return KeySet(changes.map(\.path.first))
    }

    /// What `write` may be told besides the values: skip keys already stored (`--if-absent`), or
    /// change only when the stored value equals one (`--if-equals`).
    struct Conditions {
        var ifAbsent = false
        var expected: PrefValue?
    }

    /// Applies the changes to a suite's contents (inside the store's locked update). Returns the new
    /// values of the counters (`-int-add`, `-float-add`), in order.
    func apply(to contents: inout PrefDictionary, domain: String, conditions: Conditions = Conditions()) throws -> [PrefValue] {
        switch self {
        case .replaceDomain(let replacement):
            guard conditions.ifAbsent else {
                contents = replacement
                return []
            }
            for entry in replacement where contents[entry.key] == nil { contents[entry.key] = entry.value }
            return []
        case .changes(let changes):
            var sums: [PrefValue] = []
            for change in changes {
                try KeyPathError.attributing(domain: domain, path: change.path) {
                    let stored = try contents.value(at: change.path)
                    if conditions.ifAbsent && stored != nil { return }
                    if let expected = conditions.expected, stored != expected {
                        let found = stored.map { "is " + ValueOutput.line($0) } ?? "is not stored"
                        throw PrefsError.conditionFailed(domain: domain, key: change.path.display,
                                                         reason: "\(found), not \(ValueOutput.line(expected)) (--if-equals)")
                    }
                    switch change.action {
                    case .set(let value):
                        try contents.setValue(value, at: change.path)
                    case .arrayAdd(let elements):
                        switch stored {
                        case nil: try contents.setValue(.array(elements), at: change.path)
                        case .array(let existing)?: try contents.setValue(.array(existing + elements), at: change.path)
                        case let other?: throw KeyPathError(reason: "-array-add needs an array, and the value is \(other.typeNameWithArticle)")
                        }
                    case .dictAdd(let additions):
                        switch stored {
                        case nil: try contents.setValue(.dictionary(additions), at: change.path)
                        case .dictionary(var existing)?:
                            for entry in additions { existing[entry.key] = entry.value }
                            try contents.setValue(.dictionary(existing), at: change.path)
                        case let other?: throw KeyPathError(reason: "-dict-add needs a dictionary, and the value is \(other.typeNameWithArticle)")
                        }
                    case .setFromFile:
                        throw PrefsError.internalError("a value from a file was not read before the change")
                    case .add(let amount):
                        let sum = try PrefValue.sum(stored, amount)
                        try contents.setValue(sum, at: change.path)
                        sums.append(sum)
                    }
                }
            }
            return sums
        }
    }
}
