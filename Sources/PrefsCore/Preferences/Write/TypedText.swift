/// A value given to an option as `write` types one: a scalar TYPE flag and its VALUE
/// (`--default -int 30`), or one untyped VALUE (`--default light`: a string, or the property list it
/// spells when it starts with `(`, `{` or `<`).
package struct TypedText: Equatable, Sendable {
    /// The scalar type flag (`-int`, `-bool`, `-json`…), nil for an untyped VALUE.
    package let flag: String?
    package let text: String

    package init(flag: String?, text: String) {
        self.flag = flag
        self.text = text
    }

    /// The occurrences an option's words spell, in order: each is a scalar type flag followed by its
    /// VALUE, or one untyped VALUE. (The parser takes the word after a type flag as its VALUE, so the
    /// words split one way only.)
    package static func occurrences(_ words: [String]) -> [TypedText] {
        var result: [TypedText] = []
        var rest = words[...]
        while let word = rest.popFirst() {
            if TypeFlag.isScalar(word), let text = rest.popFirst() {
                result.append(TypedText(flag: word, text: text))
            } else {
                result.append(TypedText(flag: nil, text: word))
            }
        }
        return result
    }

    /// The value, typed as `write` types it; errors name the option (`--default -int`).
    package func value(option: String) throws -> PrefValue {
        guard let flag else { return try WriteRequest.untyped(text) }
        return try WriteRequest.typed(flag, text, label: "\(option) \(flag)")
    }
}

extension TypeFlag {
    /// Whether `name` is a flag that types one scalar VALUE (`-string`, `-int`, `-json`…).
    package static func isScalar(_ name: String) -> Bool { scalars.contains(name) }
}
