import Glibc

/// A place below a base directory where no symlink is followed: the base itself is found as any path
/// is (a user may link `~/.local/share` elsewhere), every component after it must be a real directory
/// or file. External storage lives in such a place (`$XDG_DATA_HOME/prefs` + `external/SUITE/KEYDIR/UUID`),
/// so a symlink planted there can neither redirect a write nor make `gc` delete a file elsewhere.
package struct ConfinedPath: Equatable, Sendable {
    package let base: String
    package let components: [String]

    package init(base: String, _ components: [String]) {
        self.base = base
        self.components = components
    }

    package func appending(_ component: String) -> ConfinedPath { ConfinedPath(base: base, components + [component]) }

    /// The parent (the base itself for a single component).
    package var parent: ConfinedPath { ConfinedPath(base: base, Array(components.dropLast())) }

    package var name: String { components.last ?? "" }

    /// The whole path, for messages.
    package var display: String { ([base] + components).joined(separator: "/") }

    /// The first `count` components' path, for naming the one that failed.
    func prefix(_ count: Int) -> ConfinedPath { ConfinedPath(base: base, Array(components.prefix(count))) }

    /// The base and its ancestors that `exists` says are not there (outermost first), each as a
    /// path of no component: the directories that making the base with its parents makes.
    func missingBase(exists: (String) -> Bool) -> [ConfinedPath] {
        var missing: [ConfinedPath] = []
        var directory = base
        while directory != "/" && directory != "." && !directory.isEmpty && !exists(directory) {
            missing.insert(ConfinedPath(base: directory, []), at: 0)
            directory = splitPath(directory).directory
        }
        return missing
    }
}

/// One entry of a directory as `lstat` sees it: a symlink is reported as one, never followed.
package struct ConfinedEntry: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        case file, directory, symlink, other
    }

    package let name: String
    package let kind: Kind
    package let size: Int
    /// Seconds since the epoch.
    package let modified: Int64
    /// False when the name is not UTF-8: shown repaired, never acted on.
    package let nameIsUTF8: Bool

    package init(name: String, kind: Kind, size: Int, modified: Int64, nameIsUTF8: Bool = true) {
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
        self.nameIsUTF8 = nameIsUTF8
    }
}

/// An open file in a confined place: a new one being written (held with a shared lock until it is
/// closed, so `removeIfUnused` leaves it alone), or an existing one being read.
package protocol ConfinedFile: BlobSource {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Writes the file to disk (fsync).
    func sync() throws
    /// Gives the new file its final `name` in the same directory (rename), and syncs the directory.
    func commit(as name: String) throws
    /// Unlinks a new file, committed or not, while it is still held (a writer's own blob that no
    /// suite is to refer to, so that no one finds it there unheld).
    func abandon()
    /// The directories `createConfinedFile` made for a new file, outermost first (the base itself,
    /// `ConfinedPath(base:, [])`, when it made that): what to remove again, when empty, if the file
    /// is given up, so that a failed write leaves no directory behind.
    var createdDirectories: [ConfinedPath] { get }
}

/// Failures in a confined place, mapped by the caller (it knows whether it was reading or writing).
package enum ConfinedError: Error, Equatable, Sendable {
    /// A component below the base is a symlink (or something else that is not a directory/file).
    case symlink(ConfinedPath)
    case notADirectory(ConfinedPath)
    case notARegularFile(ConfinedPath)
    case missing(ConfinedPath)
    case system(ConfinedPath, errno: Int32)

    package var path: ConfinedPath {
        switch self {
        case .symlink(let p), .notADirectory(let p), .notARegularFile(let p), .missing(let p), .system(let p, _): return p
        }
    }

    package var reason: String {
        switch self {
        case .symlink(let p): return "\(p.display) is a symbolic link; nothing in external storage is followed"
        case .notADirectory(let p): return "\(p.display) is not a directory"
        case .notARegularFile(let p): return "\(p.display) is not a regular file"
        case .missing(let p): return "\(p.display) is missing"
        case .system(let p, let code): return "\(p.display): \(PrefsError.describe(errno: code))"
        }
    }

    /// As a write's error: 73 naming the path.
    package var writing: PrefsError {
        switch self {
        case .symlink(let p): return .symlinkInStore(path: p.display, writing: true)
        case .system(let p, let code): return .cannotWrite(path: p.display, errno: code)
        case .missing(let p): return .cannotWrite(path: p.display, errno: ENOENT)
        case .notADirectory(let p): return .cannotWrite(path: p.display, errno: ENOTDIR)
        case .notARegularFile(let p): return .cannotWrite(path: p.display, errno: EINVAL)
        }
    }
}
