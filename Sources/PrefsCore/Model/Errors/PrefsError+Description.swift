/// The one place a `PrefsError` becomes its one-line message — the sentence `prefs` prints after
/// `prefs: ` — naming the suite, key, path or variable involved from the case's fields. A Swift
/// program gets the same sentence: `"\(error)"`, or `description`.
extension PrefsError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .usage(let text):
            return text
        case .internalError(let text):
            return "internal error: \(text)"
        case .badName(let domain, _, let reason):
            return prefixed(domain) + reason
        case .malformed(let source, let format, let reason):
            return prefixed(source) + (format.map { "\($0.displayName): " } ?? "") + reason
        case .unrepresentable(let format, let keyPath, let reason):
            let place = keyPath.isEmpty ? "the root value" : "the value at \(keyPath)"
            return "cannot write \(place) as \(format.displayName): \(reason)"
        case .invalidValue(let domain, let key, let flag, let given, let reason):
            let what = [flag, given.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: " ")
            return prefixed(domain) + prefixed(key) + prefixed(what.isEmpty ? nil : what) + reason
        case .invalidDocument(let domain, let key, let what, let error):
            return prefixed(domain) + prefixed(key) + what + ": " + error.description
        case .suiteNotFound(let domain):
            return "\(domain): no such suite"
        case .keyNotFound(let domain, let key):
            return "\(domain): no key \(key)"
        case .invalidKey(let domain, let key, let reason):
            return "\(domain): key \(key.isEmpty ? "\"\"" : key): \(reason); nothing changed"
        case .typeMismatch(let domain, let key, let reason):
            return "\(domain): \(key): \(reason)"
        case .conditionFailed(let domain, let key, let found, let expected):
            let stored = found.map { "is " + ReadableText.line($0) } ?? "is not stored"
            return "\(domain): \(key): \(stored), not \(ReadableText.line(expected)) (--if-equals); nothing changed"
        case .reservedKey(let domain, let key, let reserved):
            return "\(domain): \(key): a dictionary with the key \"\(reserved)\" is reserved for external-storage references"
        case .badExternalValue(let domain, let key, let reason, _):
            return "\(domain): \(key): external value: \(reason)"
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .cannotRead(let path, let code):
            return "\(path): cannot read: \(PrefsError.describe(errno: code))"
        case .cannotWrite(let path, let code):
            return "\(path): cannot write: \(PrefsError.describe(errno: code))"
        case .inotifyLimit(let path, let limit, let setting):
            return "\(path): cannot watch: the inotify \(limit) limit (\(setting)) was reached; raise it with sysctl"
        case .symlinkInStore(let path, let writing):
            return "\(path): is a symbolic link; external storage follows none\(writing ? ", so nothing is written through it" : "")"
        case .badEnvironment(let name, let value, let accepted):
            return "\(name)=\(value): give \(accepted)"
        case .outputFailed(let code):
            return "standard output: cannot write: \(PrefsError.describe(errno: code))"
        case .unavailable(let endpoints, let reason):
            return "no store endpoint answered (\(endpoints.joined(separator: ", "))): \(reason)"
        case .outcomeUnknown(let domain, let reason):
            return "\(domain): the change was sent and no answer came back (\(reason)): it may or may not have been applied; read it back before trying again"
        case .storeRefused(let endpoint, _, let message, _):
            return "\(endpoint): \(message)"
        case .tlsRefused(let endpoint, let reason):
            return "\(endpoint): TLS: \(reason)"
        case .schemaViolation(let domain, let key, let reason, let schema):
            return "\(domain): \(key): \(reason) (schema \(schema)); nothing changed (--no-schema stores it anyway)"
        case .schemaNotFound(let domain):
            return "\(domain): no schema"
        case .managedKey(let domain, let key, let source):
            return "\(domain): \(key) is managed by the administrator (\(source)) and cannot be changed; nothing changed"
        case .lockUnavailable(let path, let seconds):
            return "\(path): another writer held the lock for \(seconds) s; try again (or set PREFS_LOCK_TIMEOUT)"
        case .leaseExpired(let path, let seconds):
            return "\(path): the write stalled past its \(seconds) s lease on the new value in the store; nothing changed; try again"
        case .lockNotObtained(let name, let reason):
            return "lock \(name): not obtained: \(reason)"
        case .versionNotFound(let domain, let version, let kept):
            return "\(domain): no version \(version) in its history (kept: \(kept))"
        case .versionConflict(let domain, let reason):
            return "\(domain): \(reason)"
        case .fenceFailed(let name, let token, let reason):
            return "lock \(name): token \(token) \(reason); nothing changed"
        }
    }

    private func prefixed(_ text: String?) -> String { text.map { $0 + ": " } ?? "" }
}
