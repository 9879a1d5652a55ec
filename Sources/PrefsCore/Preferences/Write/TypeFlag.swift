/// The type flags `write` (and `register`) take after a KEY, spelled as `defaults` spells them: the one
/// table the parser, `--help`, the man page and the completions are checked against.
package struct TypeFlag: Sendable, Equatable {
    package enum Takes: Sendable, Equatable {
        /// One VALUE of this type.
        case value
        /// Every word after it: items (each a VALUE, or a scalar flag and its VALUE), or for the
        /// dictionaries KEY ITEM pairs.
        case rest
        /// One number, added to the stored one.
        case number
        /// A file (or `-` for standard input) whose bytes are the value, streamed.
        case file
    }

    package let name: String
    package let takes: Takes
    /// The placeholder in help.
    package let operand: String
    package let summary: String

    package static let all: [TypeFlag] = [
        TypeFlag(name: "-string", takes: .value, operand: "TEXT", summary: "a string, literally"),
        TypeFlag(name: "-int", takes: .value, operand: "N", summary: "a signed or unsigned 64-bit integer"),
        TypeFlag(name: "-integer", takes: .value, operand: "N", summary: "the same as -int"),
        TypeFlag(name: "-float", takes: .value, operand: "X", summary: "a 64-bit real"),
        TypeFlag(name: "-bool", takes: .value, operand: "B", summary: "true, false, yes or no"),
        TypeFlag(name: "-boolean", takes: .value, operand: "B", summary: "the same as -bool"),
        TypeFlag(name: "-date", takes: .value, operand: "DATE", summary: "an ISO 8601 date (2026-01-02T03:04:05Z)"),
        TypeFlag(name: "-data", takes: .value, operand: "HEX", summary: "bytes in hexadecimal; -data @FILE (@- for standard input) streams a file"),
        TypeFlag(name: "-json", takes: .value, operand: "JSON", summary: "any JSON value (typed JSON keeps every type); -json @FILE (@- for standard input) reads a document"),
        TypeFlag(name: "-string-file", takes: .file, operand: "FILE", summary: "the UTF-8 text of FILE (- for standard input), streamed"),
        TypeFlag(name: "-array", takes: .rest, operand: "ITEM...", summary: "an array of the items"),
        TypeFlag(name: "-array-add", takes: .rest, operand: "ITEM...", summary: "the items appended to the stored array"),
        TypeFlag(name: "-array-insert", takes: .rest, operand: "INDEX ITEM...",
                 summary: "the items inserted into the stored array before element INDEX (0: first; its count: last)"),
        TypeFlag(name: "-dict", takes: .rest, operand: "KEY ITEM...", summary: "a dictionary of the pairs"),
        TypeFlag(name: "-dict-add", takes: .rest, operand: "KEY ITEM...", summary: "the pairs added to the stored dictionary"),
        TypeFlag(name: "-int-add", takes: .number, operand: "N", summary: "N added to the stored integer (missing: 0), printed"),
        TypeFlag(name: "-float-add", takes: .number, operand: "X", summary: "X added to the stored real (missing: 0), printed"),
    ]

    package static func named(_ name: String) -> TypeFlag? { all.first { $0.name == name } }

    /// The flags that type one scalar VALUE (also as an item of a container, and for `--if-equals`).
    static let scalars = Set(all.filter { $0.takes == .value }.map(\.name))
}
