import Glibc

/// Suites on a file system: where each domain's file is, reading it, and changing it safely.
///
/// Every change is one locked read-modify-write: lock the file's directory (flock, released by the
/// kernel if the process dies) → read the current file → apply the change → if nothing changed,
/// stop (the file stays untouched) → encode in the file's own format → atomic replace (temp file
/// in the same directory, fsync, rename, fsync of the directory) → unlock. A file that cannot be
/// parsed is never overwritten or deleted: the change fails with a data error and the file stays as
/// it was. Reading takes no lock and creates nothing.
public struct SuiteStore: Sendable {
    public let fileSystem: any FileSystem
    public let environment: Environment

    public init(fileSystem: any FileSystem, environment: Environment) {
        self.fileSystem = fileSystem
        self.environment = environment
    }

    /// A suite's contents and the format its file is in.
    public struct Suite: Sendable {
        public var contents: PrefDictionary
        public var format: PlistFormat
        public var path: String
    }

    /// The file that holds `domain` (standard input is not a store).
    public func path(of domain: Domain) throws -> String {
        guard let path = try domain.path(in: environment) else {
            throw PrefsError.usage("standard input cannot be changed; name a suite or a file")
        }
        return path
    }

    /// The suite's stored contents; nil when its file does not exist.
    public func load(_ domain: Domain) throws -> Suite? {
        try load(path: try path(of: domain))
    }

    func load(path: String) throws -> Suite? {
        do {
            return try SuiteStore.decode(try fileSystem.contents(of: path), path: path)
        } catch PrefsError.fileNotFound {
            return nil
        }
    }

    /// The value at `path` in a domain's own file (nil when absent; `.suiteNotFound` when the file is).
    /// A binary or XML suite is read the fast way (`PropertyList.lookup`): its structure and the value
    /// asked for are checked, other values are not read.
    public func value(at path: KeyPath, in domain: Domain) throws -> PrefValue? {
        let found = try lookup(path.first, inFile: try self.path(of: domain))
        guard found.exists else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
        return try KeyPathError.attributing(domain: domain.displayName, path: path) {
            try found.value?.value(at: path.components.dropFirst())
        }
    }

    /// The top-level value `key` of a suite file, read the fast way; `exists` is false when the file is
    /// missing.
    func lookup(_ key: String, inFile file: String) throws -> (exists: Bool, value: PrefValue?) {
        do {
            return try fileSystem.withContents(of: file) { bytes in
                (true, bytes.isEmpty ? nil : try PropertyList.lookup(key, in: bytes).value)
            }
        } catch PrefsError.fileNotFound {
            return (false, nil)
        } catch let error as PrefsError {
            throw error.attributed(to: file)
        }
    }

    /// Decodes a suite file: its root must be a dictionary. A zero-length file is an empty suite
    /// (there is nothing in it to lose).
    static func decode(_ bytes: [UInt8], path: String) throws -> Suite {
        if bytes.isEmpty { return Suite(contents: PrefDictionary(), format: newFileFormat(path), path: path) }
        let value: PrefValue, format: PlistFormat
        do {
            (value, format) = try PropertyList.decode(bytes)
        } catch let error as PrefsError {
            throw error.attributed(to: path)
        }
        guard case .dictionary(let contents) = value else {
            throw PrefsError.malformed(source: path, format: format, reason: "the root is \(value.typeNameWithArticle), not a dictionary")
        }
        return Suite(contents: contents, format: format, path: path)
    }

    /// New files are XML, except a path domain ending in `.json`.
    static func newFileFormat(_ path: String) -> PlistFormat { path.hasSuffix(".json") ? .json : .xml }

    /// The suites in the configuration directory, in code-point order, and the entries skipped on
    /// the way: a name that is not UTF-8 (no command line could name it), a symlink loop, a link
    /// that cannot be followed. One bad entry never hides the other suites.
    public func suiteNames() throws -> SuiteListing {
        let directory = try environment.configHome()
        let entries: [ConfinedEntry]
        do {
            entries = try fileSystem.confinedEntries(ConfinedPath(base: directory, []))
        } catch {
            if case .system(_, let code) = error { throw PrefsError.cannotRead(path: directory, errno: code) }
            throw PrefsError.cannotRead(path: directory, errno: ENOTDIR)
        }
        var listing = SuiteListing()
        for entry in entries where entry.name.hasSuffix(".plist") && !entry.name.hasPrefix(".") {
            let path = directory + "/" + entry.name
            guard entry.nameIsUTF8 else {
                listing.skipped.append(SkippedEntry(path: path, reason: "the name is not UTF-8"))
                continue
            }
            switch entry.kind {
            case .file: break
            case .directory: continue
            case .other:
                listing.skipped.append(SkippedEntry(path: path, reason: "not a regular file"))
                continue
            case .symlink:
                do {
                    guard try fileSystem.status(of: path)?.isDirectory == false else { continue }
                } catch PrefsError.cannotRead(_, let code) {
                    listing.skipped.append(SkippedEntry(path: path, reason: PrefsError.describe(errno: code)))
                    continue
                }
            }
            listing.names.append(String(entry.name.dropLast(6)))
        }
        return listing
    }
}

/// The suites found in the configuration directory, and what was skipped.
public struct SuiteListing: Equatable, Sendable {
    public var names: [String] = []
    public var skipped: [SkippedEntry] = []
}

/// A directory entry passed over, with the reason: a warning, not an error.
public struct SkippedEntry: Equatable, Sendable {
    public let path: String
    public let reason: String

    /// `PATH: REASON; skipped`.
    public var message: String { "\(path): \(reason); skipped" }
}
