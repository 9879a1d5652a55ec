import Glibc

/// Every failure PrefsCore reports. Each case carries its context as fields — the suite or file,
/// the key, the path, the position in a document, the limit that was passed — and nothing else:
/// `description` is the one place a case becomes its one-line message (what `prefs` prints), and
/// `exitStatus` the one place it becomes a status. Lower-level errors (errno, decode failures) are mapped
/// where they happen and keep the path.
public enum PrefsError: Error, Equatable, Sendable {
    /// The command line's shape is wrong: a missing operand, an option a verb does not take.
    case usage(String)
    /// An argument that names a suite, key or path cannot name one (empty, NUL, a lone backslash…).
    case badName(domain: String?, name: String, reason: String)
    /// A document could not be decoded. `source` is the file (or `-`) once known; `reason` starts with
    /// the position ("line 3, column 7: …" or "byte 120: …") where the decoder knows it.
    case malformed(source: String?, format: PlistFormat?, reason: String)
    /// A value has no representation in the requested format (NaN in JSON, a date in OpenStep…).
    case unrepresentable(format: PlistFormat, keyPath: String, reason: String)
    /// A value given is not acceptable: `given` is what was typed (after `flag`, the type flag or the
    /// option that typed it), `reason` why it is refused ("not a decimal integer from … to …").
    case invalidValue(domain: String?, key: String?, flag: String?, given: String?, reason: String)
    /// A value given as a document (`-json`, a property list on the command line) did not decode.
    indirect case invalidDocument(domain: String?, key: String?, what: String, error: PrefsError)
    /// The suite (or file domain) does not exist.
    case suiteNotFound(domain: String)
    /// The key (or key path) is not in the domain.
    case keyNotFound(domain: String, key: String)
    /// A key that cannot be stored (empty, or holding NUL).
    case invalidKey(domain: String, key: String, reason: String)
    /// A key path leads through a value of the wrong type, or a value has the wrong type for the change.
    case typeMismatch(domain: String, key: String, reason: String)
    /// A conditional change (`--if-equals`) found `found` (nil: nothing stored), not `expected`.
    case conditionFailed(domain: String, key: String, found: PrefValue?, expected: PrefValue)
    /// A value given contains the key reserved for external-storage references.
    case reservedKey(domain: String, key: String, reserved: String)
    /// A value in external storage cannot be trusted: its reference is malformed, or its blob is
    /// missing (`missing`) or does not match the reference's size and digest.
    case badExternalValue(domain: String, key: String, reason: String, missing: Bool = false)
    case fileNotFound(path: String)
    case cannotRead(path: String, errno: Int32)
    case cannotWrite(path: String, errno: Int32)
    /// A kernel limit on inotify (`limit`: "watch" or "instance"; `setting`: its sysctl) was reached.
    case inotifyLimit(path: String, limit: String, setting: String)
    /// A symlink was found inside external storage, where nothing is followed: a write through it is
    /// refused (73), a read or check reports it (65).
    case symlinkInStore(path: String, writing: Bool)
    /// An environment variable is set to something it does not take.
    case badEnvironment(name: String, value: String, accepted: String)
    /// Writing to standard output failed (a full disk, a reader that went away: EPIPE).
    case outputFailed(errno: Int32)
    /// No endpoint of a store on the network answered within the timeout: each one tried, and why the
    /// last one failed.
    case unavailable(endpoints: [String], reason: String)
    /// A store on the network refused a request: its gRPC status `code` and message (a request too
    /// large, too many operations in one transaction, bad credentials…), and the `status` its client
    /// gives that refusal (etcd's table of codes is its client's: `EtcdRefusal.verdict`).
    case storeRefused(endpoint: String, code: Int, message: String, status: ExitStatus)
    /// TLS with an `etcds://` endpoint failed for a reason no retry mends: its certificate was
    /// refused (unknown issuer, another name, expired), it refused ours or wanted one, or it does not
    /// speak TLS. Nothing was sent to it.
    case tlsRefused(endpoint: String, reason: String)
    /// A change was sent to a store on the network (`domain`, as messages name it) and no answer
    /// came, nor to the transaction that would have told: it may or may not have been applied.
    case outcomeUnknown(domain: String, reason: String)
    /// Another writer held the lock of `path` for longer than the bounded wait.
    case lockUnavailable(path: String, seconds: Double)
    /// This writer was stalled past the `seconds` lease that held its new value (`path`) in the
    /// store: nothing changed, a retry may succeed.
    case leaseExpired(path: String, seconds: Double)
    /// `prefs lock`: the named lock was not obtained (`--no-wait`, or `--wait` ran out); `reason`
    /// says who holds it or how long was waited.
    case lockNotObtained(name: String, reason: String)
    /// A change fenced by a lock's token (`--fence`) found the lock no longer held with it; nothing changed.
    case fenceFailed(name: String, token: Int64, reason: String)
    /// A `rollback` found the suite's history moved since it read it (4).
    case versionConflict(domain: String, reason: String)
    /// A version a suite's history does not keep (1); `kept` says which it keeps.
    case versionNotFound(domain: String, version: Int64, kept: String)
    /// A broken invariant; a bug in prefs.
    case internalError(String)
    /// A value breaks the suite's schema (`schema`: the file, or where the store keeps it):
    /// `reason` says what was expected and what was given, or that the key is not declared.
    case schemaViolation(domain: String, key: String, reason: String, schema: String)
    /// The suite has no schema (`describe`).
    case schemaNotFound(domain: String)
    /// A change would touch a key an administrator manages (`source`: the managed file, or where
    /// the store keeps managed values); nothing changed.
    case managedKey(domain: String, key: String, source: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .usage, .badName, .badEnvironment: return .usage
        case .malformed, .unrepresentable, .invalidValue, .invalidDocument, .invalidKey, .typeMismatch, .reservedKey, .badExternalValue:
            return .dataError
        case .suiteNotFound, .keyNotFound, .schemaNotFound, .versionNotFound: return .notFound
        case .schemaViolation: return .dataError
        case .conditionFailed, .fenceFailed, .versionConflict: return .conditionFailed
        case .fileNotFound: return .noInput
        case .cannotRead, .outputFailed, .inotifyLimit: return .cannotRead
        case .cannotWrite: return .cannotWrite
        case .symlinkInStore(_, let writing): return writing ? .cannotWrite : .dataError
        case .lockUnavailable, .leaseExpired, .lockNotObtained: return .lockUnavailable
        case .unavailable: return .unavailable
        case .outcomeUnknown: return .outcomeUnknown
        case .storeRefused(_, _, _, let status): return status
        case .tlsRefused, .managedKey: return .noPermission
        case .internalError: return .internalError
        }
    }

    /// The same error, naming the file it came from (decoders do not know it).
    package func attributed(to source: String) -> PrefsError {
        if case .malformed(nil, let format, let reason) = self {
            return .malformed(source: source, format: format, reason: reason)
        }
        return self
    }

    /// strerror's text, starting lowercase so it reads well after a colon.
    package static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercasedFirst
    }
}

extension String {
    /// "No such file" → "no such file", so strerror text reads well after a colon.
    var lowercasedFirst: String {
        guard let first = first, first.isUppercase else { return self }
        return first.lowercased() + dropFirst()
    }
}

extension PrefsError {
    /// The same error with its domain and key filled in where the thrower did not know them (a value
    /// parser knows the text, not the suite it is for). Fields already set are kept.
    package func at(domain: String?, key: String? = nil) -> PrefsError {
        switch self {
        case .invalidValue(let d, let k, let flag, let given, let reason):
            return .invalidValue(domain: d ?? domain, key: k ?? key, flag: flag, given: given, reason: reason)
        case .invalidDocument(let d, let k, let what, let error):
            return .invalidDocument(domain: d ?? domain, key: k ?? key, what: what, error: error)
        case .badName(let d, let name, let reason):
            return .badName(domain: d ?? domain, name: name, reason: reason)
        default:
            return self
        }
    }

    /// Runs `body`; an error from it gets the domain and key (see `at(domain:key:)`).
    package static func locating<T>(domain: String?, key: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PrefsError {
            throw error.at(domain: domain, key: key)
        }
    }
}

extension PrefsError {
    /// A store on the network that did not answer or refused (69, 77…): not a fault of the data read.
    var isStoreFailure: Bool {
        switch self {
        case .unavailable, .storeRefused, .tlsRefused: return true
        default: return false
        }
    }
}
