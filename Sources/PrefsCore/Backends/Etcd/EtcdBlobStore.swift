import Glibc

/// External values kept in etcd itself, in chunks under `PREFIX/.chunks/…` with a header under
/// `PREFIX/.external/…` (`EtcdLayout`): the chunks are written first, then the header, and only then
/// does a suite refer to the blob — the same blob → commit → cleanup order as the file store. While
/// it is written and until its suite is committed, a pending key on a lease holds it: `gc` never
/// removes a held blob, and a writer that dies lets go when its lease runs out. A blob being written
/// has a start key under `PREFIX/.started/…` holding the time it began (the header replaces it), so
/// `gc --grace` spares an unfinished blob as young as a finished one.
struct EtcdBlobStore: BlobStore {
    let etcd: any EtcdKV
    let layout: EtcdLayout
    /// The revision blobs are opened and read at (0: the latest): the suite's, for a watch that reads
    /// each change's state, since the next change may already have removed the blob it named.
    var revision: Int64 = 0
    /// Bytes per chunk: well under etcd's 1.5 MiB request limit.
    static let chunkSize = 1 << 20
    static let leaseSeconds: Int64 = 60

    func key(_ area: String, _ suite: String, _ directory: String, _ uuid: String) -> [UInt8] {
        layout.blob(area, suite: suite, directory: directory, uuid: uuid)
    }

    func chunk(_ suite: String, _ directory: String, _ uuid: String, _ index: Int) -> [UInt8] {
        let digits = String(index)
        return key(".chunks", suite, directory, uuid) + Array(("/" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits).utf8)
    }

    /// Writes a blob under a pending key on a lease of `leaseSeconds`, renewed after each chunk. A
    /// writer stalled past its lease (stopped, swapped out) finds it gone when it goes on: `gc` may
    /// have taken its chunks meanwhile, so it stops, removes what it wrote, and throws
    /// `.leaseExpired` (75: nothing changed, a retry may succeed). The header is written only while
    /// the pending key is still there.
    func write(suite: String, key: String, kind: ExternalReference.Kind, _ produce: (inout BlobSink) throws -> Void) throws -> PendingBlob {
        let directory = ExternalReference.directoryName(forKey: key), uuid = ExternalReference.newUUID()
        let pending = self.key(".pending", suite, directory, uuid)
        let expired = PrefsError.leaseExpired(path: "\(suite): \(key)", seconds: Double(EtcdBlobStore.leaseSeconds))
        let lease = try etcd.grantLease(ttl: EtcdBlobStore.leaseSeconds)
        do {
            let started = try PropertyList.encode(.integer(Int64(time(nil))), as: .binary)
            _ = try EtcdBlobStore.renewing(expired) {
                try etcd.txn(success: [.put(key: pending, value: [], lease: lease), .put(key: self.key(".started", suite, directory, uuid), value: started)])
            }
            var buffer: [UInt8] = []
            var chunks = 0
            func flush() throws {
                _ = try etcd.txn(success: [.put(key: chunk(suite, directory, uuid, chunks), value: buffer)])
                _ = try EtcdBlobStore.renewing(expired) { try etcd.keepAlive(lease) }
                chunks += 1
                buffer.removeAll(keepingCapacity: true)
            }
            var sink = BlobSink { bytes in
                buffer.append(contentsOf: bytes)
                while buffer.count >= EtcdBlobStore.chunkSize {
                    let rest = Array(buffer[EtcdBlobStore.chunkSize...])
                    buffer.removeLast(buffer.count - EtcdBlobStore.chunkSize)
                    try flush()
                    buffer = rest
                }
            }
            try produce(&sink)
            if !buffer.isEmpty { try flush() }
            let size = sink.size, digest = sink.finish()
            let header: PrefValue = ["size": .integer(Int64(size)), digest.algorithm.rawValue: .string(Hex.encode(digest.bytes)), "chunks": .integer(Int64(chunks)),
                                     "written": .integer(Int64(time(nil)))]
            let written = try etcd.txn(compare: [.version(key: pending, op: .greater, 0)],
                                       success: [.put(key: self.key(".external", suite, directory, uuid), value: try PropertyList.encode(header, as: .binary)),
                                                 .delete(key: self.key(".started", suite, directory, uuid))])
            guard written.succeeded else { throw expired }
            return PendingBlob(reference: ExternalReference(kind: kind, size: size, digest: digest, directory: directory, uuid: uuid),
                               release: { [etcd] in try? etcd.revokeLease(lease) })
        } catch {
            let chunks = self.key(".chunks", suite, directory, uuid) + [0x2F]
            _ = try? etcd.txn(success: [.delete(key: chunks, rangeEnd: EtcdClient.prefixEnd(chunks)), .delete(key: self.key(".started", suite, directory, uuid))])
            try? etcd.revokeLease(lease)
            throw error
        }
    }

    /// Runs `body`, an etcd request on the writer's lease: "lease not found" (NOT_FOUND, 5) means
    /// it expired while the writer was stalled, and becomes `expired`.
    static func renewing<T>(_ expired: PrefsError, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch PrefsError.storeRefused(_, 5, let message, _) where message.contains("lease not found") {
            throw expired
        }
    }

    /// A blob's header: its size and chunk count; nil when there is none.
    /// Reads it at `revision` (0: the latest). The store's failures are thrown as they are; a header
    /// that is not a binary property list is `ExternalReference.Problem`.
    func header(_ suite: String, _ directory: String, _ uuid: String, revision: Int64 = 0) throws -> (size: Int, chunks: Int, written: Int64)? {
        let name = "blob \(directory)/\(uuid)"
        guard let kv = try etcd.range(key(".external", suite, directory, uuid), rangeEnd: nil, limit: 0, keysOnly: false, countOnly: false,
                                      revision: revision).kvs.first else { return nil }
        let decoded: PrefValue
        do { decoded = try PropertyList.decode(kv.value, as: .binary) } catch { throw ExternalReference.Problem("\(name) has a header that is not a binary property list") }
        guard case .dictionary(let fields) = decoded,
              case .integer(let size)? = fields["size"], case .integer(let chunks)? = fields["chunks"] else { return nil }
        if case .integer(let written)? = fields["written"] { return (Int(size), Int(chunks), written) }
        return (Int(size), Int(chunks), 0)
    }

    func open(_ reference: ExternalReference, suite: String) throws(ExternalReference.Problem) -> any BlobSource {
        let name = "blob \(reference.directory)/\(reference.uuid)"
        let found: (size: Int, chunks: Int, written: Int64)?
        do { found = try header(suite, reference.directory, reference.uuid, revision: revision) } catch {
            throw ExternalReference.Problem.reading(error) { "\(name) cannot be read: " + $0 }
        }
        guard let found else { throw ExternalReference.Problem("\(name) is missing", missing: true) }
        guard found.size == reference.size else { throw ExternalReference.Problem("\(name) has \(found.size) bytes, the reference says \(reference.size)") }
        return EtcdBlobSource(store: self, suite: suite, reference: reference, size: found.size, chunks: found.chunks)
    }

    func remove(_ reference: ExternalReference, suite: String) {
        _ = try? removeUnlessPending(suite, reference.directory, reference.uuid)
    }

    /// What else a removal requires, while `gc` runs where it cannot hold the suite (over etcd's
    /// quota: `EtcdSuiteStorage.withChangesHeld`): its marker as it was when `gc` began.
    @TaskLocal static var removalGuards: [EtcdCompare] = []

    /// Deletes a blob's header, start key and chunks in one transaction, unless its pending key is
    /// held (or a removal guard fails).
    func removeUnlessPending(_ suite: String, _ directory: String, _ uuid: String) throws -> Bool {
        let chunks = key(".chunks", suite, directory, uuid) + [0x2F]
        return try etcd.txn(compare: [.version(key: key(".pending", suite, directory, uuid), op: .equal, 0)] + EtcdBlobStore.removalGuards,
                            success: [.delete(key: key(".external", suite, directory, uuid)), .delete(key: key(".started", suite, directory, uuid)),
                                      .delete(key: chunks, rangeEnd: EtcdClient.prefixEnd(chunks))]).succeeded
    }

    /// The suites with blobs, and those a change too large for one transaction wrote for
    /// (`.staged`): what `gc` may find to remove there, even in a suite that does not exist.
    func suites() throws -> [String] {
        var names = Set<String>()
        for area in [".external", ".chunks", ".started", ".staged"] {
            let prefix = layout.area(area)
            for kv in try etcd.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix), keysOnly: true).kvs {
                let rest = kv.key.dropFirst(prefix.count)
                if let name = EtcdLayout.unescape(rest.prefix { $0 != 0x2F }) { names.insert(name) }
            }
        }
        return names.sorted()
    }

    func inventory(of suite: String) -> BlobInventory {
        var inventory = BlobInventory()
        do {
            let headers = layout.blobs(".external", suite: suite)
            var seen = Set<String>()
            for kv in try etcd.range(headers, rangeEnd: EtcdClient.prefixEnd(headers)).kvs {
                let parts = kv.key.dropFirst(headers.count).split(separator: 0x2F).map { String(decoding: $0, as: UTF8.self) }
                guard parts.count == 2, let found = try header(suite, parts[0], parts[1]) else {
                    inventory.problems.append("\(suite): etcd key \(ByteText.escaped(kv.key)) is not a blob header")
                    continue
                }
                seen.insert(parts[0] + "/" + parts[1])
                inventory.blobs.append(BlobEntry(directory: parts[0], name: parts[1], size: found.size, modified: found.written))
            }
            inventory.blobs += try unfinished(suite, finished: seen)
        } catch {
            inventory.problems.append("\(suite): \(error)")
        }
        return inventory
    }

    /// Blobs with no header — a writer at work, or one that died before it finished — from their
    /// start keys and chunks: the time the writer began (0 when a writer from before start keys left
    /// no start key) and the bytes of their chunks (every one but the last is whole).
    func unfinished(_ suite: String, finished: Set<String>) throws -> [BlobEntry] {
        var found: [String: (directory: String, uuid: String, chunks: Int, started: Int64)] = [:]
        let chunks = layout.blobs(".chunks", suite: suite), starts = layout.blobs(".started", suite: suite)
        for kv in try etcd.range(chunks, rangeEnd: EtcdClient.prefixEnd(chunks), keysOnly: true).kvs {
            let parts = kv.key.dropFirst(chunks.count).split(separator: 0x2F).map { String(decoding: $0, as: UTF8.self) }
            guard parts.count == 3, !finished.contains(parts[0] + "/" + parts[1]) else { continue }
            found[parts[0] + "/" + parts[1], default: (parts[0], parts[1], 0, 0)].chunks += 1
        }
        for kv in try etcd.range(starts, rangeEnd: EtcdClient.prefixEnd(starts)).kvs {
            let parts = kv.key.dropFirst(starts.count).split(separator: 0x2F).map { String(decoding: $0, as: UTF8.self) }
            guard parts.count == 2, !finished.contains(parts[0] + "/" + parts[1]) else { continue }
            guard case .integer(let started)? = try? PropertyList.decode(kv.value, as: .binary) else { continue }
            found[parts[0] + "/" + parts[1], default: (parts[0], parts[1], 0, 0)].started = started
        }
        return try found.keys.sorted().map { id in
            let blob = found[id]!
            var size = 0
            if blob.chunks > 0 {
                let last = try etcd.range(chunk(suite, blob.directory, blob.uuid, blob.chunks - 1)).kvs.first?.value.count ?? 0
                size = (blob.chunks - 1) * EtcdBlobStore.chunkSize + last
            }
            return BlobEntry(directory: blob.directory, name: BlobEntry.temporaryPrefix + blob.uuid, size: size, modified: blob.started)
        }
    }

    func removeIfUnused(_ blob: BlobEntry, suite: String) throws -> BlobRemoval {
        try removeUnlessPending(suite, blob.directory, uuid(of: blob)) ? .removed : .inUse
    }

    /// No pending key holds the blob, and its header, start key or a chunk is still there.
    func isSettled(_ blob: BlobEntry, suite: String) -> Bool {
        let uuid = uuid(of: blob), chunks = key(".chunks", suite, blob.directory, uuid) + [0x2F]
        let reads: [EtcdOperation] = [.range(key: key(".pending", suite, blob.directory, uuid), keysOnly: true),
                                      .range(key: key(blob.isUnfinished ? ".started" : ".external", suite, blob.directory, uuid), keysOnly: true),
                                      .range(key: chunks, rangeEnd: EtcdClient.prefixEnd(chunks), keysOnly: true)]
        guard let ranges = try? etcd.txn(success: reads).ranges, ranges.count == 3 else { return true }
        return ranges[0].kvs.isEmpty && !(ranges[1].kvs.isEmpty && ranges[2].kvs.isEmpty)
    }

    private func uuid(of blob: BlobEntry) -> String {
        blob.isUnfinished ? String(blob.name.dropFirst(BlobEntry.temporaryPrefix.count)) : blob.name
    }
}

/// A blob in etcd read chunk by chunk.
final class EtcdBlobSource: BlobSource, @unchecked Sendable {
    let store: EtcdBlobStore
    let suite: String
    let reference: ExternalReference
    let total: Int
    let chunks: Int
    private var next = 0
    private var pending: ArraySlice<UInt8> = []

    init(store: EtcdBlobStore, suite: String, reference: ExternalReference, size: Int, chunks: Int) {
        self.store = store
        self.suite = suite
        self.reference = reference
        total = size
        self.chunks = chunks
    }

    func size() throws -> Int { total }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var count = 0
        while count < buffer.count {
            if pending.isEmpty {
                guard next < chunks else { break }
                guard let kv = try store.etcd.range(store.chunk(suite, reference.directory, reference.uuid, next), rangeEnd: nil, limit: 0, keysOnly: false,
                                                    countOnly: false, revision: store.revision).kvs.first else {
                    throw ExternalReference.Problem("blob \(reference.directory)/\(reference.uuid) is missing chunk \(next)")
                }
                pending = kv.value[...]
                next += 1
            }
            let taken = min(pending.count, buffer.count - count)
            pending.prefix(taken).withUnsafeBytes { buffer.baseAddress!.advanced(by: count).copyMemory(from: $0.baseAddress!, byteCount: taken) }
            pending = pending.dropFirst(taken)
            count += taken
        }
        return count
    }

    func close() {}
}
