import PrefsCore

/// `--help` text, generated from the command table.
enum HelpText {
    static func overview() -> String {
        var text = verbList()
        text += "\nOptions:\n"
        text += optionLines(CommandTable.global)
        text += "\nA DOMAIN is a suite name (the file $XDG_CONFIG_HOME/NAME.plist), -g for the global suite,\n"
        text += "a path (contains '/' or ends in .plist or .json; .plist may be left out, as in defaults),\n"
        text += "or - for standard input. -currentHost or -host NAME before the verb: the ByHost suites.\n"
        text += "\nExit status:\n"
        for status in ExitStatus.allCases {
            text += "  " + String(status.rawValue).leftPadded(to: 3) + "  " + status.meaning + "\n"
        }
        text += "\nSee prefs help VERB, and man prefs.\n"
        return text
    }

    /// What `prefs` alone prints on standard error: the usage and the verbs.
    static func usage() -> String {
        verbList() + "\nprefs --help adds the options and exit statuses; man prefs has the rest.\n"
    }

    /// The title, the usage line and one line per verb.
    private static func verbList() -> String {
        var text = """
            prefs \(CommandTable.version) — read, write and convert preferences (property lists and JSON)

            Usage: prefs VERB [OPTIONS] [ARGUMENTS]

            Verbs (prefs help VERB shows each one's arguments):

            """
        let width = CommandTable.verbs.map(\.name.count).max() ?? 0
        for verb in CommandTable.verbs {
            text += "  " + verb.name + String(repeating: " ", count: width - verb.name.count + 2) + verb.verb.summary + "\n"
        }
        return text
    }

    /// The usage with `[OPTIONS]` where they go: before the `--` of a verb that runs a command
    /// (after it, every word is the command's), else at the end.
    static func usageLine(_ verb: VerbSpec) -> String {
        guard !verb.options.isEmpty else { return verb.usage }
        let words = verb.usage.split(separator: " ", omittingEmptySubsequences: false)
        guard let dashes = words.firstIndex(of: "--") else { return verb.usage + " [OPTIONS]" }
        return (words[..<dashes] + ["[OPTIONS]"] + words[dashes...]).joined(separator: " ")
    }

    static func verb(_ verb: VerbSpec) -> String {
        var text = "Usage: \(usageLine(verb))\n\n\(verb.verb.summary)\n"
        if !verb.verb.details.isEmpty { text += "\n" + verb.verb.details + "\n" }
        text += "\nOptions:\n" + optionLines(verb.options + CommandTable.common)
        return text
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        let heads = options.map { option in
            (option.short.map { "-\($0), " } ?? "") + option.spelling + (option.value.map { " " + $0 } ?? "")
        }
        let width = heads.map(\.count).max() ?? 0
        return zip(heads, options).map { head, option in
            "  " + head + String(repeating: " ", count: width - head.count + 2) + option.summary + "\n"
        }.joined()
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension HelpText {
    static let readDetails = """
                A scalar prints bare on one line: strings as they are, integers in decimal, reals in the
                shortest form that reads back, booleans as true/false, dates in ISO 8601 UTC, data as hex.
                A missing suite or key exits 1. KEY may be a key path (:Window:Frames:0).
                Values are what an application sees: an administrator's managed value (the suite's, then
                the global suite's: $XDG_CONFIG_DIRS/prefs/managed/SUITE.plist or .json, then on etcd the
                fleet's, PREFIX/.managed/SUITE/), else the suite's stored value,
                else the global suite's, else the administrator's system defaults
                ($XDG_CONFIG_DIRS/prefs/defaults/SUITE.plist), else its registered defaults (--defaults
                FILE, then the user's and the packages' files under $XDG_DATA_HOME and $XDG_DATA_DIRS,
                in prefs/defaults/SUITE.plist or .json), else the schema's defaults.
                With --origin, a value prints after its origin and a tab; a whole suite prints one line
                per key: ORIGIN, KEY and the value on one line, tab-separated.
                With no DOMAIN, every suite's stored values.
                --raw prints the bytes of a string or data value at KEY as they are: prefs read S K --raw > FILE.
                --keys --null (or -0) ends each key with a NUL byte, for keys that hold newlines; a KEY
                that is literally -0 goes after --: prefs read S -- -0.
                On etcd, every read leaves this host a snapshot of what it read ($XDG_CACHE_HOME/prefs/).
                --max-stale SECONDS answers from one the store confirmed at most SECONDS ago without
                asking it; --fallback-cache (or PREFS_FALLBACK_CACHE=1) answers from it when no endpoint
                answers, saying so on standard error (else 69). --origin then says snapshot:AGEs:ORIGIN.
                """

    static let writeDetails = """
                TYPE is one of -string, -int (or -integer), -float, -bool (or -boolean: true, false, yes, no),
                -date (ISO 8601), -data (hex), -json (any JSON value), or -array, -array-add, -dict,
                -dict-add followed by items (each a VALUE or a scalar TYPE and its VALUE) up to the end;
                -array-insert INDEX ITEM... inserts the items before element INDEX of the stored array.
                -int-add N and -float-add N add N to the stored number under the lock (a missing key
                counts as 0, anything but a number of that type is an error) and print the new value.
                An untyped VALUE is read as defaults reads it: a word holding none of "()[]{}<> is a
                string with its backslash escapes decoded ('@\\U21a9' is @↩), any other the property list
                it spells (one starting with ( { or < may be XML or JSON too); -string keeps a word as typed.
                Several KEY [TYPE] VALUE groups may follow one another; nothing is written if one is bad.
                When the suite has a schema, an untyped VALUE takes the type it gives KEY (an integer key
                stores 30 as an integer), and every value must keep its rules (type, range, choices, a
                declared key), else 65 and nothing changes; --no-schema stores it unchecked.
                -data @FILE and -string-file FILE take the value from FILE (@- and - for standard input),
                streamed; -json @FILE reads a JSON document from FILE. A suite's string, data, array or dictionary value larger than
                $PREFS_EXTERNAL_THRESHOLD bytes (default 100K) is kept in external storage, under
                $XDG_DATA_HOME/prefs/external/SUITE/; reads see it as any other value.
                """

    static let registerDetails = """
                Changes the user's registered defaults for the suite, the file
                $XDG_DATA_HOME/prefs/defaults/SUITE.plist (or .json, if that is the one there); the suite
                itself is never touched. A dictionary from FILE (plist or JSON), standard input (-) or
                plist text is merged key by key; KEY [TYPE] VALUE groups are typed as write types them.
                Packages ship read-only defaults in the same place under $XDG_DATA_DIRS.
                --schema FILE installs FILE as the suite's schema ($XDG_DATA_HOME/prefs/schemas/SUITE.plist,
                or .json if that is the one there) once it is checked whole: a malformed schema is 65 and
                nothing is installed. Its defaults then read as registered defaults (origin schema:FILE),
                and registered values must keep its rules too.
                """

    static let describeDetails = """
                The schema is the user's ($XDG_DATA_HOME/prefs/schemas/SUITE.plist or .json, installed by
                prefs register SUITE --schema FILE), else the first one a package ships under a
                $XDG_DATA_DIRS directory. Prints the schema's path and whether it allows undeclared keys,
                then a block per key: its name, then type, default, range or choices, description, the
                value an application sees now and its origin (managed:FILE or managed:URL, stored, global,
                system:FILE, registered:FILE, schema:FILE or (none)), and "managed: yes" for a key an
                administrator manages. Exits 1 when the suite has no schema or KEY is not declared.
                """

    static let migrateDetails = """
                SOURCE is a plist or JSON file, an INI file (*.ini: each [section] becomes a dictionary),
                a .env file, -g, a suite, or - (a document on standard input); --from says which when the
                name does not. The source is only read; naming the suite itself fixes it in place.
                Prints one line per key (migrated, unchanged, skipped-conflict, missing or error) and a
                summary. A key that fails fails the migration and nothing changes, unless --skip-errors.
                """

    static let watchDetails = """
                One line per change, whoever made it: KEY OLD -> NEW, values as read prints them,
                (absent) for a key that had no value and (removed) for one that has none now. Values are
                what an application sees: a change in the global suite or in registered defaults that
                changes one counts. A write that changes nothing prints nothing; a file that cannot be
                read is reported on standard error and the watch goes on. Exits 0 on SIGINT or SIGTERM
                and when the reader of standard output goes away. -- COMMAND [ARG...] (the preferred form;
                options of the watch before --) runs COMMAND instead, found on PATH as the watch starts
                (127 not found, 126 not runnable), once per committed change: a write of several keys is
                one run. --exec COMMAND does the same through /bin/sh -c. Each run is in a process group of
                its own, with PREFS_SUITE, PREFS_KEYS (the keys changed, one per line) and, when one key
                changed, PREFS_KEY, PREFS_OLD and PREFS_NEW (unset for no value) in its environment, never
                in its words; runs never overlap, and the changes that come during one are coalesced per
                key into the next run.
                --timeout holds while COMMAND runs. A run cut short (the timeout, SIGINT, SIGTERM, SIGHUP) gets
                the signal in its whole group (SIGTERM for the timeout), SIGKILL after 5 s; the changes
                still waiting are dropped and said on standard error. A signal then exits 128+N.
                An etcd store that stops answering does not end the watch: it says so once, tries again
                (0.25 s doubling to 5 s; --retry-for SECONDS bounds how long, default for ever), and once
                the store answers reports what changed meanwhile as one change.
                """

    static let editDetails = """
                The stored values open in $VISUAL (else $EDITOR, else vi) as typed JSON, every type kept,
                in a file of its own (0600); prefs ignores SIGINT and SIGQUIT while it runs. When the
                editor exits 0, the copy (a regular file, never a link, at most 256 MiB) is read back,
                checked (the document, the schema) and stored in one locked write; a key changed
                meanwhile by someone else is never overwritten: other keys are merged, the same key
                exits 4. A bad document or value exits 65; on failure the edited copy is kept and named.
                A string or data value over 64 KiB (and a container still larger) shows as its type, size
                and SHA-256: left as it is, the value stays exactly as stored; its key may be renamed or
                deleted; a changed summary exits 65.
                """

    static let execDetails = """
                Each key of each DOMAIN (what an application sees) becomes a variable, named and written
                as export --format sh does; a later DOMAIN wins on a name. Only the named suites: a key
                whose value comes from the global suite is left out unless -g is a DOMAIN or --keys
                names it. A name that changes how a program or shell runs (LD_*, BASH_ENV, ENV, PATH,
                IFS, PS4... see the man page) is refused unless --keys names it. A key the suite stores
                that is not a variable name, a value with a NUL byte or too large for an environment is
                refused (65) before anything runs; a key from another layer (managed values, defaults)
                that is no name is left out, counted on standard error. COMMAND replaces prefs: its exit
                status and signals are its own; not found 127, not runnable 126.
                On etcd, --max-stale and --fallback-cache answer from this host's snapshot, as for read.
                """

    static let dumpDetails = """
                Writes every suite, the global suite (NSGlobalDomain) and this machine's ByHost suites,
                and with --registered the user's registered defaults, as one typed-JSON document
                (every type kept): to standard
                output, or to FILE, replaced atomically (mode 0600 when new). External values are
                streamed from their blobs. Each suite is read while no change of it can commit; one
                that cannot be read fails the dump. prefs load restores it.
                """

    static let loadDetails = """
                Reads a document dump wrote (FILE, or - for standard input), checks all of it, then
                makes each suite in it exactly its dumped contents, each in one atomic change: keys
                it lacks are removed; suites it does not hold are left alone. A document with a
                fault anywhere (malformed, a name given twice, a key or value a suite refuses)
                changes nothing (65). Prints one line per suite (restored, unchanged or failed) and
                a summary; a suite whose store fails does not stop the others (exit with its status).
                """
}
