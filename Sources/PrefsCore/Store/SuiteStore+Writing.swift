import Glibc

/// A file the store changes: a suite's (whose directory is created on the first write, 0700), a
/// file domain's (whose directory must exist), or the user's registered defaults for a suite.
public struct StoreFile: Equatable, Sendable {
    public let path: String
    public let createsDirectory: Bool
    /// How messages name it: the suite (or `SUITE (registered)`), or the path.
    public var displayName: String
    /// The name of the suite whose large values go to external storage (a suite's name or
    /// `NSGlobalDomain`); nil for a file domain or registered defaults, whose values stay inline.
    public var externalSuite: String? = nil

    public init(path: String, createsDirectory: Bool, displayName: String? = nil, externalSuite: String? = nil) {
        self.path = path
        self.createsDirectory = createsDirectory
        self.displayName = displayName ?? path
        self.externalSuite = externalSuite
    }
}

extension SuiteStore {
    /// The file that holds `domain`, for changing it.
    public func file(for domain: Domain) throws -> StoreFile {
        let path = try path(of: domain)
        let isFile = if case .file = domain { true } else { false }
        return StoreFile(path: path, createsDirectory: !isFile, displayName: domain.displayName, externalSuite: externalSuite(of: domain))
    }

    /// Changes a domain's file under its lock; see `update(_ file: StoreFile, …)`.
    @discardableResult
    public func update(_ domain: Domain, keys: KeySet? = nil, removingEmpty: Bool = false, external: ExternalOptions = ExternalOptions(),
                       _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        try update(try file(for: domain), keys: keys, removingEmpty: removingEmpty, external: external, change)
    }

    /// Changes a file under its lock. `change` sees the stored contents (empty when the file does not
    /// exist) and edits them; throwing from it changes nothing. Returns whether the file changed: a
    /// change that leaves the contents equal writes nothing. With `removingEmpty`, a change that
    /// leaves the contents empty removes the file.
    ///
    /// When the change touches only the top-level `keys` it names, a binary or XML suite is patched
    /// (`TopLevelPatch`): still checked whole, but only those entries are decoded and rewritten, and
    /// `change` then sees just those keys.
    ///
    /// In a suite, `change` sees external values as their references, except those of the keys
    /// `external.reading` names, which it sees read in; values it sets go external or inline as
    /// `ExternalTransaction` decides, and blobs it orphans are removed once the new file is committed.
    @discardableResult
    public func update(_ file: StoreFile, keys: KeySet? = nil, removingEmpty: Bool = false, external: ExternalOptions = ExternalOptions(),
                       _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        try withoutActuallyEscaping(change) { change in
            try update(file, keys: keys, removingEmpty: removingEmpty, external: external, checked: SuiteStore.checkingKeys(change, name: file.displayName))
        }
    }

    func update(_ file: StoreFile, keys: KeySet?, removingEmpty: Bool, external: ExternalOptions,
                checked change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        let transaction: ExternalTransaction?
        do {
            transaction = try ExternalTransaction(store: self, file: file, options: external)
        } catch {
            discard(external.prewritten, suite: file.externalSuite)
            throw error
        }
        do {
            let changed = try update(file, keys: keys, removingEmpty: removingEmpty, transaction: transaction, change)
            transaction?.finish(succeeded: true)
            return changed
        } catch {
            transaction?.finish(succeeded: false)
            throw error
        }
    }

    func update(_ file: StoreFile, keys: KeySet?, removingEmpty: Bool, transaction: ExternalTransaction?,
                _ change: (inout PrefDictionary) throws -> Void) throws -> Bool {
        let target = try fileSystem.resolvingSymlinks(file.path)
        let directory = splitPath(target).directory
        if try fileSystem.status(of: directory) == nil {
            // No directory, so no file: only create the directory when the change adds something.
            var contents = PrefDictionary()
            try change(&contents)
            guard !contents.isEmpty else { return false }
            guard file.createsDirectory else { throw PrefsError.cannotWrite(path: file.path, errno: ENOENT) }
            try fileSystem.createDirectory(directory, mode: 0o700)
            return try update(file, keys: keys, removingEmpty: removingEmpty, transaction: transaction, change)
        }
        return try locked(target) {
            if !removingEmpty, let keys, let patched = try patch(target, keys: keys, transaction: transaction, change) { return patched }
            let bytes: [UInt8]?
            do { bytes = try fileSystem.contents(of: target) } catch PrefsError.fileNotFound { bytes = nil }
            let current = try bytes.map { try SuiteStore.decode($0, path: target) }
            var contents = current?.contents ?? PrefDictionary()
            let format = current?.format ?? SuiteStore.newFileFormat(target)
            if let transaction {
                try transaction.run(&contents, scope: keys, format: format, change)
            } else {
                try change(&contents)
            }
            if let current, current.contents == contents { return false }
            if current == nil && contents.isEmpty { return false }
            if removingEmpty && contents.isEmpty {
                transaction?.committing = true
                try fileSystem.removeFile(target)
                return true
            }
            let encoded = try SuiteStore.encode(contents, as: format)
            // Values can differ and still encode alike (a date fraction in XML): same bytes, no write.
            guard encoded != bytes else { return false }
            transaction?.committing = true
            try fileSystem.replace(target, with: encoded, newFileMode: 0o600)
            return true
        }
    }

    /// `change`, refusing the keys no change may store (`checkStoredKeys`).
    static func checkingKeys(_ change: @escaping (inout PrefDictionary) throws -> Void, name: String) -> (inout PrefDictionary) throws -> Void {
        { contents in
            let before = contents
            try change(&contents)
            try contents.checkStoredKeys(comparedTo: before, domain: name)
        }
    }

    /// What `update` would do, for `--dry-run`: the contents before and after `change`, read without a
    /// lock and with nothing written. Fails as `update` would (a corrupt file, a value the file's
    /// format cannot hold).
    /// External values are shown read in.
    public func preview(_ file: StoreFile, keys: KeySet? = nil, external: ExternalOptions = ExternalOptions(),
                        _ change: (inout PrefDictionary) throws -> Void) throws -> (before: PrefDictionary, after: PrefDictionary) {
        try withoutActuallyEscaping(change) { change in
            try preview(file, keys: keys, external: external, checked: SuiteStore.checkingKeys(change, name: file.displayName))
        }
    }

    func preview(_ file: StoreFile, keys: KeySet?, external: ExternalOptions,
                 checked change: (inout PrefDictionary) throws -> Void) throws -> (before: PrefDictionary, after: PrefDictionary) {
        let current = try load(path: file.path)
        var before = current?.contents ?? PrefDictionary()
        var after = before
        if let transaction = try ExternalTransaction(store: self, file: file, options: ExternalOptions(placement: external.placement, reading: keys), writesBlobs: false) {
            try transaction.run(&after, scope: keys, format: current?.format, change)
            before = try materializedContents(before, suite: transaction.suite, domain: transaction.suite)
            after = try materializedContents(after, suite: transaction.suite, domain: transaction.suite)
        } else {
            try change(&after)
        }
        if after != before, !after.isEmpty {
            _ = try SuiteStore.encode(after, as: current?.format ?? SuiteStore.newFileFormat(file.path))
        }
        return (before, after)
    }

    /// Patches the file in place of a full rewrite; nil when it cannot be patched (missing, empty,
    /// another format, or a structure the patch declines).
    func patch(_ target: String, keys: KeySet, transaction: ExternalTransaction?, _ change: (inout PrefDictionary) throws -> Void) throws -> Bool? {
        do {
            return try fileSystem.withContents(of: target) { bytes -> Bool? in
                guard !bytes.isEmpty else { return nil }
                let outcome = try TopLevelPatch.apply(to: bytes, keys: keys) { contents in
                    guard let transaction else { return try change(&contents) }
                    try transaction.run(&contents, scope: keys, format: nil, change)
                }
                switch outcome {
                case .unchanged:
                    return false
                case .patched(let newBytes):
                    guard !newBytes.elementsEqual(bytes) else { return false }
                    transaction?.committing = true
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

    /// Deletes a suite's file (the target of a symlink; the link stays), under its lock and only
    /// after checking that it is a suite: a file that cannot be parsed, or whose root is not a
    /// dictionary, is refused and kept. Returns false when there was no file.
    @discardableResult
    public func remove(_ domain: Domain) throws -> Bool {
        let target = try fileSystem.resolvingSymlinks(try path(of: domain))
        guard try fileSystem.status(of: target) != nil else { return false }
        return try locked(target) {
            guard let suite = try load(path: target) else { return false }
            try fileSystem.removeFile(target)
            discard(suite.contents.compactMap { try? ExternalReference.parse($0.value) }, suite: externalSuite(of: domain))
            return true
        }
    }

    /// Runs `body` holding the lock of the file `target` (see `FileSystem.withLock(ofFile:)`).
    func locked<T>(_ target: String, _ body: () throws -> T) throws -> T {
        try fileSystem.withLock(ofFile: target, timeout: try environment.lockTimeout(), body)
    }

    /// Encodes suite contents in a file's format, refusing values the format would silently change:
    /// an OpenStep file holds only strings, data, arrays and dictionaries, and a plain JSON file has no
    /// dates, data or UIDs (they would come back as strings).
    static func encode(_ contents: PrefDictionary, as format: PlistFormat) throws -> [UInt8] {
        if let (key, type) = firstValueLost(.dictionary(contents), in: format, path: "") {
            throw PrefsError.unrepresentable(format: format, keyPath: key,
                reason: "this \(format.displayName) file cannot hold a value of type \(type); convert the file first (prefs export FILE FILE --format xml)")
        }
        return try PropertyList.encode(.dictionary(contents), as: format)
    }

    static func firstValueLost(_ value: PrefValue, in format: PlistFormat, path: String) -> (key: String, type: String)? {
        switch (value, format) {
        case (.array(let elements), _):
            for (i, element) in elements.enumerated() {
                if let found = firstValueLost(element, in: format, path: path + ":" + String(i)) { return found }
            }
            return nil
        case (.dictionary(let dictionary), _):
            for entry in dictionary {
                if let found = firstValueLost(entry.value, in: format, path: path + ":" + KeyPath.escape(entry.key)) { return found }
            }
            return nil
        case (.string, .openStep), (.data, .openStep): return nil
        case (_, .openStep): return (path, value.typeName)
        case (.date, .json), (.data, .json), (.uid, .json): return (path, value.typeName)
        default: return nil
        }
    }
}
