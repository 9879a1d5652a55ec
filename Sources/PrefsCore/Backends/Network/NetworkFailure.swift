import Glibc

/// Why talking to one endpoint failed. The client moves on to the next endpoint for every case but
/// `tooLarge` (the same answer would come from any member), `stopped` (the caller asked to end) and
/// `tls` (a certificate refused) and `credentials` (ours cannot be used).
enum NetworkFailure: Error, Equatable, CustomStringConvertible {
    /// The host name did not resolve (the resolver's message).
    case resolve(String)
    /// A system call failed: what was being done, and errno.
    case system(String, errno: Int32)
    /// The deadline passed while doing this.
    case timedOut(String)
    /// The server closed the connection before a whole response came.
    case closed
    /// The bytes that came are not an HTTP/1.1 response.
    case malformed(String)
    /// A response's head, body or message is larger than the limit.
    case tooLarge(what: String, limit: Int)
    /// The descriptor watched for a hang-up hung up.
    case stopped
    /// TLS failed for a reason no retry mends: a certificate was refused (either side's).
    case tls(String)
    /// The client's CA file, certificate or key cannot be used (`TLSContext.load`'s reason).
    case credentials(String)
    /// A TLS handshake or session broke off (the server closed the connection or reset it, as a
    /// member going away does) or what came is not TLS (a plain-text server): the next endpoint.
    case tlsBroken(String)
    /// A plain-text request was answered in TLS (an alert), or the endpoint answers a TLS
    /// handshake: it speaks TLS only.
    case speaksTLS

    var description: String {
        switch self {
        case .resolve(let message): return "cannot resolve the host: \(message)"
        case .system(let doing, let code): return "\(doing): \(PrefsError.describe(errno: code))"
        case .timedOut(let doing): return "timed out \(doing)"
        case .closed: return "the connection was closed before a whole response came"
        case .malformed(let reason): return "not an HTTP response: \(reason)"
        case .tooLarge(let what, let limit): return "\(what) is over the limit of \(limit) bytes"
        case .stopped: return "stopped"
        case .tls(let reason), .tlsBroken(let reason), .credentials(let reason): return "TLS: \(reason)"
        case .speaksTLS:
            return "the server speaks TLS: use etcds:// (with PREFS_ETCD_CACERT, and PREFS_ETCD_CERT and PREFS_ETCD_KEY if it asks for a client certificate)"
        }
    }

    /// A connection refused or reset, an unreachable network: the member is down or going.
    var isConnectionLoss: Bool {
        switch self {
        case .closed, .tlsBroken: return true
        case .system(_, let code): return [ECONNREFUSED, ECONNRESET, EPIPE, ECONNABORTED, ENETUNREACH, EHOSTUNREACH].contains(code)
        default: return false
        }
    }
}
