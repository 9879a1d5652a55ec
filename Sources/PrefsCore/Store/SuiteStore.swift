#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Suites on a file system: where each domain's file is, reading it, and changing it safely.
///
/// Every change is one locked read-modify-write: lock the file's directory (flock, released by the
/// kernel if the process dies) → read the current file → apply the change → if nothing changed,
/// stop (the file stays untouched) → encode in the file's own format → atomic replace (temp file
/// in the same directory, fsync, rename, fsync of the directory) → unlock. A file that cannot be
/// parsed is never overwritten: the change fails with a data error and the file stays as it was.
/// Reading takes no lock and creates nothing.
public struct SuiteStore: Sendable {
    public let fileSystem: any FileSystem
    public let environment: Environment
    /// How long a writer waits for another writer's lock: `$PREFS_LOCK_TIMEOUT` seconds, default 10.
    public let lockTimeout: Double

    public init(fileSystem: any FileSystem, environment: Environment) {
        self.fileSystem = fileSystem
        self.environment = environment
        lockTimeout = environment["PREFS_LOCK_TIMEOUT"].flatMap(Double.init).map { max($0, 0) } ?? 10
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
        let path = try path(of: domain)
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.contents(of: path)
        } catch PrefsError.fileNotFound {
            return nil
        }
        return try SuiteStore.decode(bytes, path: path)
    }

    /// The value at `path` in a domain (nil when absent; `.suiteNotFound` when the suite is). Large
    /// binary and XML suites are checked whole but only the value asked for is built.
    public func value(at path: KeyPath, in domain: Domain) throws -> PrefValue? {
        let file = try self.path(of: domain)
        let top: PrefValue?
        do {
            top = try fileSystem.withContents(of: file) { bytes in
                bytes.isEmpty ? nil : try PropertyList.lookup(path.first, in: bytes).value
            }
        } catch PrefsError.fileNotFound {
            throw PrefsError.suiteNotFound(domain: domain.displayName)
        } catch let error as PrefsError {
            throw error.attributed(to: file)
        }
        return try KeyPathError.attributing(domain: domain.displayName, path: path) {
            try top?.value(at: path.components.dropFirst())
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
            throw PrefsError.malformed(source: path, format: format, reason: "the root is a \(value.typeName), not a dictionary")
        }
        return Suite(contents: contents, format: format, path: path)
    }

    /// New files are XML, except a path domain ending in `.json`.
    static func newFileFormat(_ path: String) -> PlistFormat { path.hasSuffix(".json") ? .json : .xml }

    /// Changes a suite under its lock. `change` sees the stored contents (empty when the suite does not
    /// exist) and edits them; throwing from it changes nothing. Returns whether the file changed: a
    /// change that leaves the contents equal writes nothing.
    ///
    /// When the change touches only the top-level `keys` it names, a binary or XML suite is patched
    /// (`TopLevelPatch`): still checked whole, but only those entries are decoded and rewritten, and
    /// `change` then sees just those keys.
    @discardableResult
    public func update(_ domain: Domain, keys: Set<String>? = nil, _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        let path = try path(of: domain)
        let target = try fileSystem.resolvingSymlinks(path)
        let directory = splitPath(target).directory
        if try fileSystem.status(of: directory) == nil {
            // No directory, so no suite: only create the store (0700) when the change adds something.
            var contents = PrefDictionary()
            try change(&contents)
            guard !contents.isEmpty else { return false }
            guard case .file = domain else {
                try fileSystem.createDirectory(directory, mode: 0o700)
                return try update(domain, keys: keys, change)
            }
            throw PrefsError.cannotWrite(path: path, errno: ENOENT)
        }
        return try fileSystem.withLock(onDirectory: directory, timeout: lockTimeout) {
            if let keys, let patched = try patch(target, keys: keys, change) { return patched }
            let current = try loadResolved(target)
            var contents = current?.contents ?? PrefDictionary()
            try change(&contents)
            if let current, current.contents == contents { return false }
            if current == nil && contents.isEmpty { return false }
            let format = current?.format ?? SuiteStore.newFileFormat(target)
            try fileSystem.replace(target, with: try SuiteStore.encode(contents, as: format), newFileMode: 0o600)
            return true
        }
    }

    /// Patches the file in place of a full rewrite; nil when it cannot be patched (missing, empty,
    /// another format, or a structure the patch declines).
    func patch(_ target: String, keys: Set<String>, _ change: (inout PrefDictionary) throws -> Void) throws -> Bool? {
        do {
            return try fileSystem.withContents(of: target) { bytes -> Bool? in
                guard !bytes.isEmpty else { return nil }
                switch try TopLevelPatch.apply(to: bytes, keys: keys, change: change) {
                case .unchanged:
                    return false
                case .patched(let newBytes):
                    try fileSystem.replace(target, with: newBytes, newFileMode: 0o600)
                    return true
                case .unsupported:
                    return nil
                }
            }
        } catch PrefsError.fileNotFound {
            return nil
        } catch let error as PrefsError {
            throw error.attributed(to: target)
        }
    }

    /// Deletes a suite's file (the target of a symlink; the link stays). Returns false when there was
    /// no file.
    @discardableResult
    public func remove(_ domain: Domain) throws -> Bool {
        let target = try fileSystem.resolvingSymlinks(try path(of: domain))
        guard try fileSystem.status(of: target) != nil else { return false }
        return try fileSystem.withLock(onDirectory: splitPath(target).directory, timeout: lockTimeout) {
            guard try fileSystem.status(of: target) != nil else { return false }
            try fileSystem.removeFile(target)
            return true
        }
    }

    /// The names of the suites in the configuration directory, in code-point order.
    public func suiteNames() throws -> [String] {
        let directory = try environment.configHome()
        return try fileSystem.contentsOfDirectory(directory)
            .filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") }
            .filter { try fileSystem.status(of: directory + "/" + $0)?.isDirectory == false }
            .map { String($0.dropLast(6)) }
            .sorted { $0.utf8Compare($1) < 0 }
    }

    func loadResolved(_ target: String) throws -> Suite? {
        do {
            return try SuiteStore.decode(try fileSystem.contents(of: target), path: target)
        } catch PrefsError.fileNotFound {
            return nil
        }
    }

    /// Encodes suite contents in a file's format. An OpenStep file can hold only strings, data,
    /// arrays and dictionaries; any other value is refused rather than silently turned into text.
    static func encode(_ contents: PrefDictionary, as format: PlistFormat) throws -> [UInt8] {
        if format == .openStep, let path = firstNonOpenStepValue(.dictionary(contents), path: "") {
            throw PrefsError.unrepresentable(format: .openStep, keyPath: path.key,
                reason: "an OpenStep file cannot hold a \(path.type); convert it first (prefs export FILE FILE --format xml)")
        }
        return try PropertyList.encode(.dictionary(contents), as: format)
    }

    static func firstNonOpenStepValue(_ value: PrefValue, path: String) -> (key: String, type: String)? {
        switch value {
        case .string, .data: return nil
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = firstNonOpenStepValue(element, path: path + ":" + String(i)) { return found }
            }
            return nil
        case .dictionary(let dictionary):
            for entry in dictionary {
                if let found = firstNonOpenStepValue(entry.value, path: path + ":" + KeyPath.escape(entry.key)) { return found }
            }
            return nil
        default:
            return (path, value.typeName)
        }
    }
}
