extension FileSuiteStorage {
    /// Creates a location's file holding an empty dictionary, in its format (XML, or JSON for a
    /// `.json` path), when there is none — `write ./x.plist '{}'`, as `defaults write` does. A file
    /// domain's directory must exist; a suite's is made. Returns whether it created the file.
    package func createEmpty(_ location: SuiteLocation) throws -> Bool {
        let target = try fileSystem.resolvingSymlinks(try path(of: location))
        let directory = splitPath(target).directory
        if try fileSystem.status(of: directory) == nil {
            if case .file = location { throw PrefsError.cannotWrite(path: target, errno: 2) }
            try fileSystem.createDirectory(directory, mode: 0o700)
        }
        return try locked(target) {
            guard try fileSystem.status(of: target) == nil else { return false }
            let empty = try FileSuiteStorage.encode(PrefDictionary(), as: newSuiteFileFormat(target))
            try fileSystem.replace(target, with: empty, newFileMode: 0o600)
            return true
        }
    }
}
