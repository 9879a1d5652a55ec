import Glibc

/// Confined places in memory, with the disk's rules: the base is followed, nothing below it is; a new
/// file is held shared until closed and `removeIfUnused` leaves it; the same `ConfinedError`s.
extension InMemoryFileSystem.State {
    /// The node path of a confined directory; with `create`, missing directories are made.
    mutating func directoryNode(_ path: ConfinedPath, create: Bool) throws(ConfinedError) -> String {
        var current = resolve(normalize(path.base))
        switch nodes[current] {
        case .directory?: break
        case nil where create:
            var built = ""
            for part in current.split(separator: "/") {
                built += "/" + part
                if nodes[resolve(built)] == nil { nodes[built] = .directory(mode: 0o700) }
            }
        case nil: throw .missing(path.prefix(0))
        default: throw .notADirectory(path.prefix(0))
        }
        for (i, component) in path.components.enumerated() {
            current = (current == "/" ? "" : current) + "/" + component
            switch nodes[current] {
            case .directory?: continue
            case .symlink?: throw .symlink(path.prefix(i + 1))
            case .file?: throw .notADirectory(path.prefix(i + 1))
            case nil where create: nodes[current] = .directory(mode: 0o700)
            case nil: throw .missing(path.prefix(i + 1))
            }
        }
        return current
    }

    /// The node of an existing regular file: its path and inode.
    mutating func fileNode(_ path: ConfinedPath) throws(ConfinedError) -> (node: String, inode: UInt64) {
        let node = try directoryNode(path.parent, create: false) + "/" + path.name
        switch nodes[node] {
        case .file(_, _, let inode, _)?: return (node, inode)
        case .symlink?: throw .symlink(path)
        case .directory?: throw .notARegularFile(path)
        case nil: throw .missing(path)
        }
    }
}

extension InMemoryFileSystem {
    package func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        let (node, candidate, inode, created) = try locked { (s: inout State) throws(ConfinedError) -> (String, String, UInt64, [ConfinedPath]) in
            // What is missing now is what this call makes (the mutex is held throughout).
            let created = directory.missingBase { s.nodes[s.resolve(normalize($0))] != nil }
                + directory.components.indices.map { directory.prefix($0 + 1) }.filter { (try? s.directoryNode($0, create: false)) == nil }
            let parent = try s.directoryNode(directory, create: true)
            for _ in 0..<100 {
                let candidate = name()
                let node = parent + "/" + candidate
                guard s.nodes[node] == nil else { continue }
                s.clock += 1
                let inode = UInt64(s.clock)
                s.nodes[node] = .file(bytes: [], mode: 0o600, inode: inode, modified: Int64(time(nil)) * 1_000_000_000)
                s.sharedLocks[inode, default: 0] += 1
                return (node, candidate, inode, created)
            }
            throw .system(directory, errno: EEXIST)
        }
        return InMemoryConfinedFile(fileSystem: self, node: node, path: directory.appending(candidate), inode: inode, isNew: true,
                                    createdDirectories: created)
    }

    package func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile {
        let (node, inode) = try locked { (s: inout State) throws(ConfinedError) in try s.fileNode(path) }
        return InMemoryConfinedFile(fileSystem: self, node: node, path: path, inode: inode, isNew: false)
    }

    package func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] {
        try locked { (s: inout State) throws(ConfinedError) -> [ConfinedEntry] in
            let parent: String
            do throws(ConfinedError) {
                parent = try s.directoryNode(directory, create: false)
            } catch {
                if case .missing = error { return [] }
                throw error
            }
            let prefix = parent + "/"
            return s.nodes.compactMap { path, node -> ConfinedEntry? in
                guard path.hasPrefix(prefix), !path.dropFirst(prefix.count).contains("/") else { return nil }
                let name = String(path.dropFirst(prefix.count))
                switch node {
                case .file(let bytes, _, _, let modified):
                    return ConfinedEntry(name: name, kind: .file, size: bytes.count, modified: modified / 1_000_000_000)
                case .directory: return ConfinedEntry(name: name, kind: .directory, size: 0, modified: 0)
                case .symlink: return ConfinedEntry(name: name, kind: .symlink, size: 0, modified: 0)
                }
            }.sorted { $0.name.utf8Compare($1.name) < 0 }
        }
    }

    package func isSettled(_ path: ConfinedPath) -> Bool {
        do {
            return try locked { (s: inout State) throws(ConfinedError) -> Bool in s.sharedLocks[try s.fileNode(path).inode, default: 0] == 0 }
        } catch {
            if case .missing = error { return false }
            return true
        }
    }

    package func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> BlobRemoval {
        try locked { (s: inout State) throws(ConfinedError) -> BlobRemoval in
            let found: (node: String, inode: UInt64)
            do throws(ConfinedError) {
                found = try s.fileNode(path)
            } catch {
                if case .missing = error { return .missing }
                throw error
            }
            if s.sharedLocks[found.inode, default: 0] > 0 { return .inUse }
            s.nodes[found.node] = nil
            return .removed
        }
    }

    package func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool {
        (try? locked { (s: inout State) throws(ConfinedError) -> Bool in
            let node = path.components.isEmpty ? s.resolve(normalize(path.base)) : try s.directoryNode(path.parent, create: false) + "/" + path.name
            guard case .directory? = s.nodes[node], !s.nodes.keys.contains(where: { $0.hasPrefix(node + "/") }) else { return false }
            s.nodes[node] = nil
            return true
        }) ?? false
    }
}

/// An open file in a confined place of an `InMemoryFileSystem`: the node it is, while it is still that
/// inode (a file removed or replaced under it reads as missing).
final class InMemoryConfinedFile: ConfinedFile, @unchecked Sendable {
    private let fileSystem: InMemoryFileSystem
    private var node: String
    private var path: ConfinedPath
    private let inode: UInt64
    private let isNew: Bool
    let createdDirectories: [ConfinedPath]
    private var offset = 0
    private var closed = false

    init(fileSystem: InMemoryFileSystem, node: String, path: ConfinedPath, inode: UInt64, isNew: Bool, createdDirectories: [ConfinedPath] = []) {
        self.fileSystem = fileSystem
        self.node = node
        self.path = path
        self.inode = inode
        self.isNew = isNew
        self.createdDirectories = createdDirectories
    }

    deinit { close() }

    /// Runs `body` with the file's bytes, under the mutex; `.missing` once it is gone.
    private func withBytes<T: Sendable>(_ body: (inout [UInt8]) -> T) throws(ConfinedError) -> T {
        let node = self.node, inode = self.inode
        let result: T? = fileSystem.locked { s in
            guard case .file(var bytes, let mode, inode, let modified)? = s.nodes[node] else { return nil }
            s.nodes[node] = nil
            let result = body(&bytes)
            s.nodes[node] = .file(bytes: bytes, mode: mode, inode: inode, modified: modified)
            return result
        }
        guard let result else { throw .missing(path) }
        return result
    }

    func size() throws -> Int { try withBytes { $0.count } }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let start = offset
        let count = try withBytes { bytes in
            let count = min(buffer.count, bytes.count - start)
            if count > 0 { bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count) } }
            return max(count, 0)
        }
        offset += count
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        let copy = Array(bytes)
        try withBytes { $0.append(contentsOf: copy) }
    }

    func sync() throws {}

    func commit(as name: String) throws {
        let node = self.node, inode = self.inode
        let target = splitPath(node).directory + "/" + name
        let moved = fileSystem.locked { s -> Bool in
            guard case .file(_, _, inode, _)? = s.nodes[node], case .directory? = s.nodes[splitPath(target).directory] else { return false }
            if case .directory? = s.nodes[target] { return false }
            s.nodes[target] = s.nodes.removeValue(forKey: node)
            return true
        }
        guard moved else { throw ConfinedError.system(path, errno: ENOENT) }
        self.node = target
        path = path.parent.appending(name)
    }

    func abandon() {
        guard isNew, !closed else { return }
        let node = self.node, inode = self.inode
        fileSystem.locked { s in
            if case .file(_, _, inode, _)? = s.nodes[node] { s.nodes[node] = nil }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        guard isNew else { return }
        let inode = self.inode
        fileSystem.locked { s in
            s.sharedLocks[inode, default: 1] -= 1
            if s.sharedLocks[inode] == 0 { s.sharedLocks[inode] = nil }
        }
    }
}
