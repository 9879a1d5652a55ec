/// The exit statuses of `prefs`: a public contract that scripts branch on. Never renumber a case.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    /// The key or suite asked for is absent (read, read-type, delete, rename).
    case notFound = 1
    /// Something changed; only with `--exit-code`.
    case changed = 3
    /// A conditional write's condition did not hold (`--if-equals`); nothing changed.
    case conditionFailed = 4
    case usage = 64
    /// Bad value, malformed input, corrupt store, type mismatch.
    case dataError = 65
    case noInput = 66
    /// A store on the network (etcd) did not answer at any endpoint in time; nothing was applied.
    case unavailable = 69
    case internalError = 70
    case cannotWrite = 73
    case cannotRead = 74
    /// A lock could not be obtained; a retry may succeed.
    case lockUnavailable = 75
    /// A change was sent to a store on the network and no answer came: it may or may not have been
    /// applied. Read back and decide; do not blindly retry.
    case outcomeUnknown = 76
    /// The store refused the credentials, or the user may not do this.
    case noPermission = 77
    /// `lock`: the lock was lost while COMMAND ran (no keep-alive reached the store in time), and
    /// COMMAND was stopped before the store could give the lock to another.
    case lockLost = 78
    /// `exec`: COMMAND was found but could not be run (as env(1) exits); `edit`: the editor failed.
    case cannotExecute = 126
    /// `exec`, `edit`: COMMAND (the editor) was not found (as env(1) exits).
    case commandNotFound = 127

    /// The one-line meaning shown in `--help` and the man page's EXIT STATUS.
    public var meaning: String {
        switch self {
        case .success: return "success"
        case .notFound: return "not found: the key or suite is absent"
        case .changed: return "changed (only with --exit-code)"
        case .conditionFailed: return "condition not met (--if-equals): nothing changed"
        case .usage: return "usage error"
        case .dataError: return "data error: bad value, malformed input, corrupt store, type mismatch"
        case .noInput: return "input file missing"
        case .unavailable: return "store unavailable: no endpoint usable in time; nothing was applied"
        case .internalError: return "internal error"
        case .cannotWrite: return "cannot write (a full disk or etcd quota)"
        case .cannotRead: return "cannot read (or write standard output)"
        case .lockUnavailable: return "lock not obtained (a retry may succeed)"
        case .outcomeUnknown: return "outcome unknown: the change may or may not have been applied"
        case .noPermission: return "permission denied: by the store, its TLS certificate, or a managed key"
        case .lockLost: return "lock: the lock was lost while COMMAND ran, and COMMAND was stopped"
        case .cannotExecute: return "exec: the command could not be run; edit: the editor failed"
        case .commandNotFound: return "exec, edit: the command or editor was not found"
        }
    }
}
