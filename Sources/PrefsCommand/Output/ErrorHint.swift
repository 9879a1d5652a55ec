import PrefsCore

extension PrefsError {
    /// The message, with a hint for a likely slip, found only once the command has failed:
    /// - a suite that does not exist named like a file in the current directory (`prefs read
    ///   settings.xml` for `./settings.xml`) gets `(did you mean ./NAME?)`, since only a word with a
    ///   `/` or a `.plist`/`.json` ending is a path; else a suite of a close name gets `(did you mean
    ///   NAME?)`;
    /// - a key `a.b` or `a/b` that is not there while `a` holds a dictionary gets the key path that
    ///   reaches into it, `:a:b`.
    func message(hinting context: CommandContext) -> String {
        switch self {
        case .suiteNotFound(let name):
            if !name.contains("/"), let status = try? context.fileSystem.status(of: name), !status.isDirectory {
                return message + " (did you mean ./\(name)?)"
            }
            guard let names = try? context.store.suiteNames().names else { return message }
            return message + Suggestions.hint(for: name, among: names)
        case .keyNotFound(let domainName, let key):
            guard !key.hasPrefix(":"), let separator = key.firstIndex(where: { $0 == "." || $0 == "/" }),
                let domain = try? Domain(argument: domainName),
                case .dictionary? = try? context.store.value(at: PrefKeyPath([String(key[..<separator])]), in: domain)
            else { return message }
            let path = key.split(whereSeparator: { $0 == "." || $0 == "/" }).joined(separator: ":")
            return message + " (\(key[..<separator]) is a dictionary: a key inside it is the key path :\(path))"
        default:
            return message
        }
    }
}
