import PrefsCore

/// The option of the verbs that change stored values: `--fence TOKEN` commits the change only while
/// the lock `$PREFS_LOCK_NAME` (which `prefs lock` sets for its COMMAND, with `PREFS_LOCK_TOKEN`) is
/// still held with TOKEN — `--fence NAME:TOKEN` names the lock itself — checked in the same step as
/// the commit; else exit 4 and nothing changes.
protocol FenceOptions: SendableMetatype {
    var fence: String? { get set }
}

extension Option where Values: FenceOptions {
    static var fence: Option {
        .text("fence", "TOKEN", "change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4") {
            $0.fence = $1
        }
    }
}

extension Command where Values: FenceOptions {
    /// The context whose store commits only while the fence holds (`SuiteStore.fenced`).
    static func fenced(_ values: Values, _ context: CommandContext) throws -> CommandContext {
        guard let fence = values.fence else { return context }
        var name = try context.environment["PREFS_LOCK_NAME"]
        var token = Substring(fence)
        if let colon = fence.lastIndex(of: ":") {
            name = String(fence[..<colon])
            token = fence[fence.index(after: colon)...]
        }
        guard let name else {
            throw PrefsError.usage("\(verb.name): --fence \(fence): which lock? PREFS_LOCK_NAME is not set (give NAME:TOKEN)")
        }
        guard let number = Int64(token), number > 0 else {
            throw PrefsError.usage("\(verb.name): --fence takes a lock's token (PREFS_LOCK_TOKEN), a positive number, not '\(token)'")
        }
        var context = context
        context.store = try context.store.fenced(name: name, token: number)
        return context
    }
}

extension Command {
    /// A verb without `--fence` changes nothing of its context.
    static func fenced(_ values: Values, _ context: CommandContext) throws -> CommandContext { context }
}
