import Glibc
import PrefsCore

/// `prefs locks [PATTERN]` — the locks of the store that are held, one holder per line: NAME,
/// user@host, pid, since (UTC, ISO 8601) and token, separated by tabs, sorted by name and token.
/// PATTERN is a glob on NAME (`domains` has the same). Reads only: nothing is created.
enum LocksCommand: Command {
    struct Values: CommandValues {}

    static let verb = Verb(name: "locks", operands: "[PATTERN]",
                           summary: "list the held locks of the store: NAME, user@host, pid, since, token (tab-separated)",
                           operandCount: 0...1)

    static let operandKinds: [WordKind] = [.text]

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let pattern = operands.first.map(Glob.init)
        for holder in try context.store.locks().holders() where pattern?.matches(holder.name) ?? true {
            let identity = holder.identity
            context.print([holder.name, identity.user, String(identity.pid), LocksCommand.utc(identity.since), String(holder.token)].joined(separator: "\t"))
        }
        return .success
    }

    /// `2026-11-28T00:25:16Z`.
    static func utc(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
