import PrefsCore

/// How the verbs that change a store run a change: for real, in one locked write, or with
/// `--dry-run`, printing what would change — one line per top-level key (`ValueOutput.report`) —
/// and changing nothing (no lock, no file, no directory). Returns whether something changed (or
/// would), for `--exit-code`.
enum Changing {
    /// `reporting`: print the dry run's change lines (a verb with its own report says no).
    static func run(_ invocation: Invocation, _ context: CommandContext, _ file: SuiteTarget, keys: KeySet? = nil,
                    removingEmpty: Bool = false, reporting: Bool = true, external: ExternalOptions = ExternalOptions(),
                    _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        guard invocation.has("dry-run") else {
            return try context.store.update(file, keys: keys, removingEmpty: removingEmpty, external: external, change)
        }
        let (before, after) = try context.store.preview(file, keys: keys, external: external, change)
        return reporting ? report(from: before, to: after, context) : before != after
    }

    /// Prints the changes from `before` to `after`; true when there are any.
    static func report(from before: PrefDictionary, to after: PrefDictionary, _ context: CommandContext) -> Bool {
        let changes = before.changes(to: after)
        for change in changes { context.print(ValueOutput.report(change)) }
        return !changes.isEmpty
    }

    /// The new values of the counters a change added to (`-int-add`, `-float-add`), one per line;
    /// nothing for a dry run, whose report already shows them.
    static func printCounters(_ sums: [PrefValue], _ invocation: Invocation, _ context: CommandContext) {
        guard !invocation.has("dry-run") else { return }
        for sum in sums { context.print(ValueOutput.bare(sum) ?? "") }
    }
}
