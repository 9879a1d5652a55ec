import PrefsCore

extension PrefsError {
    /// The message, with a hint for a likely slip: a suite that does not exist named like a file in
    /// the current directory (`prefs read settings.xml` for `./settings.xml`) gets
    /// `(did you mean ./NAME?)`, since only a word with a `/` or a `.plist`/`.json` ending is a path.
    func message(hinting fileSystem: any FileSystem) -> String {
        guard case .suiteNotFound(let name) = self, !name.contains("/"),
              let status = try? fileSystem.status(of: name), !status.isDirectory else { return message }
        return message + " (did you mean ./\(name)?)"
    }
}
