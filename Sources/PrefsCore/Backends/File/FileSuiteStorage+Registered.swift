extension FileSuiteStorage {
    /// The user's registration files, `$XDG_DATA_HOME/prefs/defaults/NAME.plist` or `NAME.json`: each
    /// NAME once. A file whose name no command line could give is skipped, and said so.
    package func registeredNames() throws -> SuiteListing {
        var listing = SuiteListing()
        guard let home = try environment.optionalDataHome() else { return listing }
        let directory = home + "/prefs/defaults"
        var names = Set<String>()
        for entry in try fileSystem.contentsOfDirectory(directory) where entry.hasSuffix(".plist") || entry.hasSuffix(".json") {
            let name = String(entry.dropLast(entry.hasSuffix(".json") ? 5 : 6))
            guard let domain = try? Domain(argument: name), domain.registrationName == name else {
                listing.skipped.append(SkippedEntry(path: directory + "/" + entry, reason: "not the registration of a suite prefs can name"))
                continue
            }
            if try fileSystem.status(of: directory + "/" + entry)?.isDirectory == false { names.insert(name) }
        }
        listing.names = names.sorted { $0.utf8Compare($1) < 0 }
        return listing
    }
}
