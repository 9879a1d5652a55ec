import PrefsCore

/// What a command says of an answer from the host's snapshot of a suite (`--max-stale`,
/// `--fallback-cache`): a line on standard error when the store did not answer, and `--origin`'s
/// `snapshot:AGE:ORIGIN`.
enum SnapshotOutput {
    /// `read` on the store, or on the snapshot as `policy` allows, saying on standard error when the
    /// snapshot answered because the store did not; `answered` is told of any answer from it.
    static func reading<T>(_ domain: Domain, _ policy: SnapshotPolicy, _ context: CommandContext,
                           answered: (SnapshotAnswer) -> Void = { _ in }, _ read: (SuiteStore) throws -> T) throws -> T {
        try context.store.reading(domain, policy: policy, answered: { answer in
            if answer.unavailable != nil { context.printError(notice(answer, domain: domain.displayName)) }
            answered(answer)
        }, read)
    }

    /// `SUITE: the store did not answer; answering from this host's snapshot of TIME (AGE ago)`.
    static func notice(_ answer: SnapshotAnswer, domain: String) -> String {
        "\(domain): the store did not answer; answering from this host's snapshot of \(answer.confirmedDate.iso8601(wholeSeconds: true)) (\(age(answer.age)) ago)"
    }

    /// `42s`, `3m`, `5h`, `2d`: whole units, rounded down.
    static func age(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds.rounded(.down)))
        if whole < 120 { return "\(whole)s" }
        if whole < 7200 { return "\(whole / 60)m" }
        if whole < 172_800 { return "\(whole / 3600)h" }
        return "\(whole / 86400)d"
    }

    /// `gc` with no DOMAIN: removes the host's old snapshots (`SuiteStore.pruneSnapshots`), one line
    /// each: `removed snapshot of SUITE at STORE: FILE (N bytes)`; whether it removed any.
    static func prune(grace: Double, dryRun: Bool, _ context: CommandContext) throws -> Bool {
        let pruned = try context.store.pruneSnapshots(grace: grace, dryRun: dryRun)
        for file in pruned {
            let what = file.suite.map { "snapshot of \($0) at \(file.store ?? "")" } ?? "cache file that is no snapshot"
            context.print("\(dryRun ? "would remove" : "removed") \(what): \(file.file) (\(file.size) bytes)")
        }
        return !pruned.isEmpty
    }

    /// How `--origin` names a value's layer: `snapshot:SECONDS s:ORIGIN` when the snapshot gave it.
    static func origin(_ origin: Origin, _ answer: SnapshotAnswer?) -> String {
        guard let answer, answer.holds(origin) else { return origin.description }
        return "snapshot:\(Int(answer.age.rounded(.down)))s:\(origin)"
    }
}
