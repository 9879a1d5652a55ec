/// What a word of a command line is, as far as the completions go: what they offer for it. Each
/// option that takes a value (`OptionSpec.valueKind`) and each operand of a verb
/// (`Command.operandKinds`) has one; `prefs completion` writes each shell's script from them.
enum WordKind: Sendable, Equatable {
    /// Free text (a value to compare, a GLOB, a number): nothing is offered.
    case text
    /// A file name.
    case file
    /// A suite's name, `-g` or `NSGlobalDomain`.
    case suite
    /// A DOMAIN: a suite, or a file named by its path.
    case domain
    /// A key of the DOMAIN (the first operand), as an application sees the suite.
    case key
    /// A key stored in the DOMAIN (`reset`: registered defaults have nothing to reset).
    case storedKey
    /// A key of the DOMAIN, or a file (`register DOMAIN KEY…` or `register DOMAIN FILE`).
    case keyOrFile
    /// What follows a KEY in `write` and `register`: a TYPE flag, `true`/`false`/`yes`/`no` after a
    /// boolean one, a file after `-string-file` or `-data @`, else the choices the suite's schema
    /// gives the KEY.
    case value
    /// One of the verbs.
    case verb
    /// One of these words.
    case choice([String])
    /// Comma-separated keys stored in the operand at this index (0: the first).
    case keyList(operand: Int)
    /// A scalar TYPE flag and its VALUE, or an untyped VALUE (`read --default -int 30`).
    case typed
}
