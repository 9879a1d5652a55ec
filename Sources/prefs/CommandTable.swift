import PrefsCore

/// An option a verb accepts: `--name` or `--name VALUE` (also `--name=VALUE`), and for a few a
/// one-character spelling (`-0`).
struct OptionSpec: Sendable {
    let name: String
    /// The character of the short spelling (`"0"` for `-0`), if the option has one.
    let short: Character?
    /// The placeholder shown in help when the option takes a value.
    let value: String?
    /// The only values accepted, when the set is closed.
    let choices: [String]
    let summary: String

    init(_ name: String, short: Character? = nil, value: String? = nil, choices: [String] = [], _ summary: String) {
        self.name = name
        self.short = short
        self.value = value
        self.choices = choices
        self.summary = summary
    }
}

/// A verb: its synopsis, what it does, its options, how many operands it takes, and the code that
/// runs it. `CommandTable.verbs` is the one list that parsing, `--help`, and the consistency tests
/// against the man page, completions and README all read.
struct VerbSpec: Sendable {
    let name: String
    let operands: String
    let summary: String
    let options: [OptionSpec]
    let operandCount: ClosedRange<Int>
    /// More about the operands, for `prefs help VERB` (the man page has everything).
    var details = ""
    let run: @Sendable (Invocation, CommandContext) throws -> ExitStatus

    var usage: String { "prefs \(name)" + (operands.isEmpty ? "" : " \(operands)") }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name } ?? CommandTable.common.first { $0.name == name }
    }

    /// The option spelled `-C`, for a verb that has one.
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }
}

enum CommandTable {
    static let version = "0.1.0"

    static let formatNames = PlistFormat.allCases.map(\.rawValue)

    /// Options every verb accepts.
    static let common = [OptionSpec("help", "show help for this verb")]

    /// For verbs that change a suite: CI steps that set a flag can tell "changed" from "already so".
    static let exitCode = OptionSpec("exit-code", "exit 3 when something changed, 0 when everything was already so")

    /// For verbs that change a suite: see the change first.
    static let dryRun = OptionSpec("dry-run", "print what would change (+ added, - removed, ~ replaced) and change nothing")

    /// For verbs that read what an application sees.
    static let origin = OptionSpec("origin", "say where each value came from: stored, global, registered:FILE or command-line")
    static let stored = OptionSpec("stored", "only the suite's own stored values, no global suite or registered defaults")
    static let defaults = OptionSpec("defaults", value: "FILE", "registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)")

    /// Options accepted before the verb.
    static let global = [
        OptionSpec("help", "show this help (also -h)"),
        OptionSpec("version", "print the version"),
    ]

    static let verbs: [VerbSpec] = [
        VerbSpec(
            name: "read", operands: "[DOMAIN [KEY]]",
            summary: "print a value (a scalar bare, for $(...)), a suite, or every suite",
            options: [OptionSpec("json", "print JSON instead of the readable form"),
                      OptionSpec("keys", "print the keys of the suite (or of the dictionary at KEY), one per line"),
                      OptionSpec("raw", "print a string's or data value's bytes exactly, with no newline (an external one streams from its blob)"),
                      OptionSpec("null", short: "0", "with --keys, end each key with a NUL byte instead of a newline"), origin, stored, defaults],
            operandCount: 0...2,
            details: """
                A scalar prints bare on one line: strings as they are, integers in decimal, reals in the
                shortest form that reads back, booleans as true/false, dates in ISO 8601 UTC, data as hex.
                A missing suite or key exits 1. KEY may be a key path (:Window:Frames:0).
                Values are what an application sees: the suite's stored value, else the global suite's,
                else its registered defaults (--defaults FILE, then the user's and the packages' files
                under $XDG_DATA_HOME and $XDG_DATA_DIRS, in prefs/defaults/SUITE.plist or .json).
                With --origin, a value prints after its origin and a tab; a whole suite prints one line
                per key: ORIGIN, KEY and the value on one line, tab-separated.
                With no DOMAIN, every suite's stored values.
                --raw prints the bytes of a string or data value at KEY as they are: prefs read S K --raw > FILE.
                --keys --null (or -0) ends each key with a NUL byte, for keys that hold newlines; a KEY
                that is literally -0 goes after --: prefs read S -- -0.
                """,
            run: ReadCommand.run),
        VerbSpec(
            name: "read-type", operands: "DOMAIN KEY",
            summary: "print the type of a value (string, integer, float, boolean, date...)",
            options: [origin, stored, defaults], operandCount: 2...2, run: ReadTypeCommand.run),
        VerbSpec(
            name: "write", operands: "DOMAIN KEY [TYPE] VALUE... | DOMAIN PLIST",
            summary: "set values, typed as defaults types them, in one locked write",
            options: [exitCode, dryRun,
                      OptionSpec("if-absent", "skip the keys that are already stored"),
                      OptionSpec("if-equals", value: "VALUE", "change the key only if its stored value is VALUE (typed as the new value); else exit 4"),
                      OptionSpec("external", "keep the values in external storage whatever their size"),
                      OptionSpec("inline", "keep the values in the suite's file whatever their size")],
            operandCount: 2...Int.max,
            details: """
                TYPE is one of -string, -int (or -integer), -float, -bool (or -boolean: true, false, yes, no),
                -date (ISO 8601), -data (hex), -json (any JSON value), or -array, -array-add, -dict,
                -dict-add followed by items (each a VALUE or a scalar TYPE and its VALUE) up to the end.
                -int-add N and -float-add N add N to the stored number under the lock (a missing key
                counts as 0, anything but a number of that type is an error) and print the new value.
                An untyped VALUE is a string, or the property list it spells when it starts with ( { or <.
                Several KEY [TYPE] VALUE groups may follow one another; nothing is written if one is bad.
                -data @FILE and -string-file FILE take the value from FILE (@- and - for standard input),
                streamed. A suite's string, data, array or dictionary value larger than
                $PREFS_EXTERNAL_THRESHOLD bytes (default 100K) is kept in external storage, under
                $XDG_DATA_HOME/prefs/external/SUITE/; reads see it as any other value.
                """,
            run: WriteCommand.run),
        VerbSpec(
            name: "delete", operands: "DOMAIN [KEY]",
            summary: "remove a key, or the whole suite",
            options: [exitCode, dryRun], operandCount: 1...2, run: DeleteCommand.run),
        VerbSpec(
            name: "rename", operands: "DOMAIN OLD NEW",
            summary: "move a value to a new key",
            options: [exitCode, dryRun], operandCount: 3...3, run: RenameCommand.run),
        VerbSpec(
            name: "register", operands: "DOMAIN FILE|-|PLIST | DOMAIN KEY [TYPE] VALUE... | DOMAIN --delete KEY",
            summary: "record registered defaults: values reads show while nothing is stored",
            options: [OptionSpec("replace", "replace the whole registration instead of merging into it"),
                      OptionSpec("delete", value: "KEY", "remove KEY from the registration (repeatable)"),
                      exitCode, dryRun],
            operandCount: 1...Int.max,
            details: """
                Changes the user's registered defaults for the suite, the file
                $XDG_DATA_HOME/prefs/defaults/SUITE.plist (or .json, if that is the one there); the suite
                itself is never touched. A dictionary from FILE (plist or JSON), standard input (-) or
                plist text is merged key by key; KEY [TYPE] VALUE groups are typed as write types them.
                Packages ship read-only defaults in the same place under $XDG_DATA_DIRS.
                """,
            run: RegisterCommand.run),
        VerbSpec(
            name: "reset", operands: "DOMAIN [KEY...]",
            summary: "remove stored values so the registered defaults show again",
            options: [exitCode, dryRun], operandCount: 1...Int.max,
            details: """
                Removes the stored values of the KEYs, or of every key when none is named, and the suite's
                file when nothing is left in it. A key that is not stored is already reset: exit 0.
                """,
            run: ResetCommand.run),
        VerbSpec(
            name: "domains", operands: "",
            summary: "list the suites, one per line",
            options: [OptionSpec("null", short: "0", "end each name with a NUL byte instead of a newline")], operandCount: 0...0, run: DomainsCommand.run),
        VerbSpec(
            name: "find", operands: "WORD",
            summary: "find suites, keys and string values that contain WORD",
            options: [OptionSpec("json", "print the matches as JSON"), OptionSpec("null", short: "0", "end each match with a NUL byte instead of a newline")],
            operandCount: 1...1,
            details: """
                One match per line: the suite, then a tab and the key (a KEY that names the match) for a
                key or value match. With --null (or -0), each match ends with a NUL byte instead of a
                newline. A WORD that is literally -0 goes after --: prefs find -- -0.
                """,
            run: FindCommand.run),
        VerbSpec(
            name: "lint", operands: "FILE...",
            summary: "check property-list and JSON files, like plutil -lint",
            options: [], operandCount: 1...Int.max, run: LintCommand.run),
        VerbSpec(
            name: "export", operands: "DOMAIN PATH|-",
            summary: "write a suite or a file in another format",
            options: [OptionSpec("format", value: "FORMAT", choices: formatNames, "xml (default), binary, openstep, json or typed-json"),
                      OptionSpec("keys", value: "LIST", "only these keys (comma-separated KEYs or :key:paths; repeatable)"),
                      OptionSpec("effective", "export what an application sees (stored, global and registered values), not just the stored ones"),
                      defaults],
            operandCount: 2...2, run: ExportCommand.run),
        VerbSpec(
            name: "import", operands: "DOMAIN PATH|-",
            summary: "merge a plist or JSON dictionary into a suite (or replace it), all or nothing",
            options: [OptionSpec("replace", "make the suite exactly the document (else merge key by key)"),
                      OptionSpec("if-absent", "keep the keys that are already stored"),
                      OptionSpec("format", value: "FORMAT", choices: formatNames, "read the document as FORMAT (default: by its content)"),
                      dryRun, exitCode],
            operandCount: 2...2,
            details: """
                The document's root must be a dictionary. In JSON, a key set to null is deleted from
                the suite. One locked write: a bad document or value changes nothing.
                """,
            run: ImportCommand.run),
        VerbSpec(
            name: "migrate", operands: "DOMAIN SOURCE",
            summary: "bring settings in from a plist, JSON, INI or .env file or a suite, with a plan and a report",
            options: [OptionSpec("from", value: "KIND", choices: MigrateCommand.SourceKind.allCases.map(\.rawValue),
                                 "what SOURCE is: file (plist or JSON), ini, env or suite (default: by its name)"),
                      OptionSpec("keys", value: "LIST", "only these keys (comma-separated KEYs or :key:paths; repeatable)"),
                      OptionSpec("bool-keys", value: "LIST", "make these keys booleans from 0/1, yes/no, true/false (else an error)"),
                      OptionSpec("rename", value: "OLD=NEW", "store the key OLD as NEW (repeatable)"),
                      OptionSpec("infer-types", "strings that spell integers, reals or true/false become typed"),
                      OptionSpec("decode-json-strings", "strings that are a JSON object or array become that value"),
                      OptionSpec("overwrite", "replace stored values that differ (else they are kept: skipped-conflict)"),
                      OptionSpec("skip-errors", "leave out the keys that fail instead of failing the migration"),
                      OptionSpec("dry-run", "print the report of what would happen and change nothing"), exitCode],
            operandCount: 2...2,
            details: """
                SOURCE is a plist or JSON file, an INI file (*.ini: each [section] becomes a dictionary),
                a .env file, -g, a suite, or - (a document on standard input); --from says which when the
                name does not. The source is only read; naming the suite itself fixes it in place.
                Prints one line per key (migrated, unchanged, skipped-conflict, missing or error) and a
                summary. A key that fails fails the migration and nothing changes, unless --skip-errors.
                """,
            run: MigrateCommand.run),
        VerbSpec(
            name: "watch", operands: "DOMAIN [KEY...]",
            summary: "print each change of a suite's values (or of the KEYs) as it happens",
            options: [OptionSpec("json", "print each change as a JSON object on one line"),
                      OptionSpec("initial", "print the current values first"),
                      OptionSpec("once", "exit after the first change"),
                      OptionSpec("timeout", value: "SECONDS", "stop after SECONDS (with --once: exit 1 if no change came)")],
            operandCount: 1...Int.max,
            details: """
                One line per change, whoever made it: KEY OLD -> NEW, values as read prints them,
                (absent) for a key that had no value and (removed) for one that has none now. Values are
                what an application sees: a change in the global suite or in registered defaults that
                changes one counts. A write that changes nothing prints nothing; a file that cannot be
                read is reported on standard error and the watch goes on. Exits 0 on SIGINT or SIGTERM
                and when the reader of standard output goes away.
                """,
            run: WatchCommand.run),
        VerbSpec(
            name: "check", operands: "[DOMAIN...]",
            summary: "verify the external values of suites: every blob present with its recorded size and SHA-256; list orphan blobs",
            options: [], operandCount: 0...Int.max,
            details: """
                Checks the named suites, or every suite. Prints one line per problem (a missing or damaged
                blob, a malformed reference, a blob no reference names) and exits 65 if there is one.
                """,
            run: CheckCommand.run),
        VerbSpec(
            name: "gc", operands: "[DOMAIN...]",
            summary: "remove orphan blobs from external storage",
            options: [OptionSpec("grace", value: "SECONDS", "only blobs older than SECONDS (default 3600), so a write in progress keeps its blob"),
                      OptionSpec("dry-run", "print what would be removed and remove nothing"), exitCode],
            operandCount: 0...Int.max,
            details: """
                Removes the blobs of the named suites (or of every suite) that no reference names and that
                are older than the grace period: what writers killed mid-write leave behind.
                """,
            run: GCCommand.run),
        VerbSpec(
            name: "help", operands: "[VERB]",
            summary: "show help for prefs or for one verb",
            options: [], operandCount: 0...1, run: HelpCommand.run),
    ]

    static func verb(named name: String) -> VerbSpec? { verbs.first { $0.name == name } }
}
