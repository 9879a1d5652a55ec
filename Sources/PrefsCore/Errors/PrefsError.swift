import Glibc

/// Every failure PrefsCore reports. Each case carries the context a one-line message needs; `message`
/// and `exitStatus` are the only places that turn a case into text and a status.
public enum PrefsError: Error, Equatable, Sendable {
    /// The command line is wrong.
    case usage(String)
    /// A document could not be decoded. `source` is the file (or `-`) once known; `reason` starts with
    /// the position ("line 3, column 7: …" or "byte 120: …") where the decoder knows it.
    case malformed(source: String?, format: PlistFormat?, reason: String)
    /// A value has no representation in the requested format (NaN in JSON, a date in OpenStep…).
    case unrepresentable(format: PlistFormat, keyPath: String, reason: String)
    /// A value given by the user is not acceptable (`-int abc`, a bad date…).
    case invalidValue(String)
    /// The suite (or file domain) does not exist.
    case suiteNotFound(domain: String)
    /// The key (or key path) is not in the domain.
    case keyNotFound(domain: String, key: String)
    /// A key that cannot be stored (empty, or holding NUL).
    case invalidKey(domain: String, key: String, reason: String)
    /// A key path leads through a value of the wrong type, or a value has the wrong type for the change.
    case typeMismatch(domain: String, key: String, reason: String)
    /// A conditional change found the value not as the condition required (`--if-equals`).
    case conditionFailed(domain: String, key: String, reason: String)
    /// A value in external storage cannot be trusted: its reference is malformed, or its blob is
    /// missing or does not match the reference's size and SHA-256.
    case badExternalValue(domain: String, key: String, reason: String)
    case fileNotFound(path: String)
    case cannotRead(path: String, errno: Int32)
    case cannotWrite(path: String, errno: Int32)
    /// A symlink was found inside external storage, where nothing is followed: a write through it is
    /// refused (73), a read or check reports it (65).
    case symlinkInStore(path: String, writing: Bool)
    /// An environment variable is set to something it does not take.
    case badEnvironment(name: String, value: String, accepted: String)
    /// Writing to standard output failed (a full disk, a reader that went away: EPIPE).
    case outputFailed(errno: Int32)
    /// Another writer held the lock of `path` (a directory) for longer than the bounded wait.
    case lockUnavailable(path: String, seconds: Double)
    /// A broken invariant; a bug in prefs.
    case internalError(String)

    public var exitStatus: ExitStatus {
        switch self {
        case .usage, .badEnvironment: return .usage
        case .outputFailed: return .cannotRead
        case .malformed, .unrepresentable, .invalidValue, .invalidKey, .typeMismatch, .badExternalValue: return .dataError
        case .suiteNotFound, .keyNotFound: return .notFound
        case .conditionFailed: return .conditionFailed
        case .fileNotFound: return .noInput
        case .cannotRead: return .cannotRead
        case .cannotWrite: return .cannotWrite
        case .lockUnavailable: return .lockUnavailable
        case .symlinkInStore(_, let writing): return writing ? .cannotWrite : .dataError
        case .internalError: return .internalError
        }
    }

    /// One line, without the `prefs: ` prefix the command adds.
    public var message: String {
        switch self {
        case .usage(let text):
            return text
        case .malformed(let source, let format, let reason):
            let what = format.map { "\($0.displayName): " } ?? ""
            return (source.map { "\($0): " } ?? "") + what + reason
        case .unrepresentable(let format, let keyPath, let reason):
            let place = keyPath.isEmpty ? "the root value" : "the value at \(keyPath)"
            return "cannot write \(place) as \(format.displayName): \(reason)"
        case .invalidValue(let text):
            return text
        case .suiteNotFound(let domain):
            return "\(domain): no such suite"
        case .keyNotFound(let domain, let key):
            return "\(domain): no key \(key)"
        case .invalidKey(let domain, let key, let reason):
            return "\(domain): key \(key.isEmpty ? "\"\"" : key): \(reason); nothing changed"
        case .typeMismatch(let domain, let key, let reason):
            return "\(domain): \(key): \(reason)"
        case .conditionFailed(let domain, let key, let reason):
            return "\(domain): \(key): \(reason); nothing changed"
        case .badExternalValue(let domain, let key, let reason):
            return "\(domain): \(key): external value: \(reason)"
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .cannotRead(let path, let code):
            return "\(path): cannot read: \(PrefsError.describe(errno: code))"
        case .cannotWrite(let path, let code):
            return "\(path): cannot write: \(PrefsError.describe(errno: code))"
        case .symlinkInStore(let path, let writing):
            return "\(path): is a symbolic link; external storage follows none\(writing ? ", so nothing is written through it" : "")"
        case .badEnvironment(let name, let value, let accepted):
            return "\(name)=\(value): give \(accepted)"
        case .outputFailed(let code):
            return "standard output: cannot write: \(PrefsError.describe(errno: code))"
        case .lockUnavailable(let path, let seconds):
            return "\(path): another writer held the lock for \(seconds) s; try again (or set PREFS_LOCK_TIMEOUT)"
        case .internalError(let text):
            return "internal error: \(text)"
        }
    }

    /// The same error, naming the file it came from (decoders do not know it).
    public func attributed(to source: String) -> PrefsError {
        if case .malformed(nil, let format, let reason) = self {
            return .malformed(source: source, format: format, reason: reason)
        }
        return self
    }

    static func describe(errno code: Int32) -> String {
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
