import Glibc

/// Confined places in memory, with the disk's rules: the base is followed, nothing below it is; a new
/// file is held shared until closed and `removeIfUnused` leaves it; the same `ConfinedError`s.
extension InMemoryFileSystem {
    /// The node path of a confined directory; with `create`, missing directories are made. Call it
    /// holding the mutex.
    private func directoryNode(_ path: ConfinedPath, create: Bool) throws(ConfinedError) -> String {
        var current = resolveUnlocked(normalize(path.base))
        switch nodes[current] {
        case .directory?: break
        case nil where create:
            var built = ""
            for part in current.split(separator: "/") {
                built += "/" + part
                if nodes[resolveUnlocked(built)] == nil { nodes[built] = .directory(mode: 0o700) }
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

    private func withMutex<T>(_ body: () throws(ConfinedError) -> T) throws(ConfinedError) -> T {
        var result: Result<T, ConfinedError>!
        locked {
            do throws(ConfinedError) { result = .success(try body()) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    public func createConfinedFile(in directory: ConfinedPath, name: () -> String) throws(ConfinedError) -> any ConfinedFile {
        try withMutex { () throws(ConfinedError) -> any ConfinedFile in
            let parent = try directoryNode(directory, create: true)
            for _ in 0..<100 {
                let candidate = name()
                let path = parent + "/" + candidate
                guard nodes[path] == nil else { continue }
                clock += 1
                let inode = UInt64(clock)
                nodes[path] = .file(bytes: [], mode: 0o600, inode: inode, modified: Int64(time(nil)) * 1_000_000_000)
                sharedLocks[inode, default: 0] += 1
                return InMemoryConfinedFile(fileSystem: self, node: path, path: directory.appending(candidate), inode: inode, isNew: true)
            }
            throw .system(directory, errno: EEXIST)
        }
    }

    public func openConfinedFile(_ path: ConfinedPath) throws(ConfinedError) -> any ConfinedFile {
        try withMutex { () throws(ConfinedError) -> any ConfinedFile in
            let node = try directoryNode(path.parent, create: false) + "/" + path.name
            switch nodes[node] {
            case .file(_, _, let inode, _)?:
                return InMemoryConfinedFile(fileSystem: self, node: node, path: path, inode: inode, isNew: false)
            case .symlink?: throw .symlink(path)
            case .directory?: throw .notARegularFile(path)
            case nil: throw .missing(path)
            }
        }
    }

    public func confinedEntries(_ directory: ConfinedPath) throws(ConfinedError) -> [ConfinedEntry] {
        try withMutex { () throws(ConfinedError) -> [ConfinedEntry] in
            let parent: String
            do throws(ConfinedError) {
                parent = try directoryNode(directory, create: false)
            } catch {
                if case .missing = error { return [] }
                throw error
            }
            let prefix = parent + "/"
            return nodes.compactMap { path, node -> ConfinedEntry? in
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

    public func removeIfUnused(_ path: ConfinedPath) throws(ConfinedError) -> ConfinedRemoval {
        try withMutex { () throws(ConfinedError) -> ConfinedRemoval in
            let node: String
            do throws(ConfinedError) {
                node = try directoryNode(path.parent, create: false) + "/" + path.name
            } catch {
                if case .missing = error { return .missing }
                throw error
            }
            switch nodes[node] {
            case .file(_, _, let inode, _)?:
                if sharedLocks[inode, default: 0] > 0 { return .inUse }
                nodes[node] = nil
                return .removed
            case .symlink?: throw .symlink(path)
            case .directory?: throw .notARegularFile(path)
            case nil: return .missing
            }
        }
    }

    public func removeConfinedDirectoryIfEmpty(_ path: ConfinedPath) -> Bool {
        guard !path.components.isEmpty else { return false }
        return (try? withMutex { () throws(ConfinedError) -> Bool in
            let node = try directoryNode(path.parent, create: false) + "/" + path.name
            guard case .directory? = nodes[node], !nodes.keys.contains(where: { $0.hasPrefix(node + "/") }) else { return false }
            nodes[node] = nil
            return true
        }) ?? false
    }

    /// The bytes of the file node `node` while it is still `inode`; nil once it is gone or replaced.
    fileprivate func bytes(of node: String, inode: UInt64) -> [UInt8]? {
        locked {
            guard case .file(let bytes, _, inode, _)? = nodes[node] else { return nil }
            return bytes
        }
    }

    fileprivate func update(_ node: String, inode: UInt64, _ body: (inout [UInt8]) -> Void) -> Bool {
        locked {
            guard case .file(var bytes, let mode, inode, let modified)? = nodes[node] else { return false }
            nodes[node] = nil
            body(&bytes)
            nodes[node] = .file(bytes: bytes, mode: mode, inode: inode, modified: modified)
            return true
        }
    }

    fileprivate func move(_ node: String, inode: UInt64, to target: String) -> Bool {
        locked {
            guard case .file(_, _, inode, _)? = nodes[node], case .directory? = nodes[splitPath(target).directory] else { return false }
            if case .directory? = nodes[target] { return false }
            nodes[target] = nodes.removeValue(forKey: node)
            return true
        }
    }

    fileprivate func unlock(_ inode: UInt64) {
        locked {
            sharedLocks[inode, default: 1] -= 1
            if sharedLocks[inode] == 0 { sharedLocks[inode] = nil }
        }
    }
}

/// An open file in a confined place of an `InMemoryFileSystem`.
final class InMemoryConfinedFile: ConfinedFile, @unchecked Sendable {
    private let fileSystem: InMemoryFileSystem
    private var node: String
    private var path: ConfinedPath
    private let inode: UInt64
    private let isNew: Bool
    private var offset = 0
    private var closed = false

    init(fileSystem: InMemoryFileSystem, node: String, path: ConfinedPath, inode: UInt64, isNew: Bool) {
        self.fileSystem = fileSystem
        self.node = node
        self.path = path
        self.inode = inode
        self.isNew = isNew
    }

    deinit { close() }

    func size() throws -> Int {
        guard let bytes = fileSystem.bytes(of: node, inode: inode) else { throw ConfinedError.missing(path) }
        return bytes.count
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let bytes = fileSystem.bytes(of: node, inode: inode) else { throw ConfinedError.missing(path) }
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard fileSystem.update(node, inode: inode, { $0.append(contentsOf: bytes) }) else { throw ConfinedError.system(path, errno: ENOENT) }
    }

    func sync() throws {}

    func commit(as name: String) throws {
        let target = splitPath(node).directory + "/" + name
        guard fileSystem.move(node, inode: inode, to: target) else { throw ConfinedError.system(path, errno: ENOENT) }
        node = target
        path = path.parent.appending(name)
    }

    func abandon() {
        guard isNew, !closed else { return }
        _ = fileSystem.locked {
            if case .file(_, _, inode, _)? = fileSystem.nodes[node] { fileSystem.nodes[node] = nil }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if isNew { fileSystem.unlock(inode) }
    }
}
