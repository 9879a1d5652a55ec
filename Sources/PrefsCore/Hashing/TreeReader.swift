import Glibc

/// Reads a large stream whole and computes its `SHA256Tree` digest on two threads, for checking a
/// blob as it is served (`BlobReader`). A worker reads the stream into buffers of 2 MiB (two tree
/// pieces, hashed at once: `SHA256.hash(lanes:)`) and hashes them; the caller's thread uses each
/// buffer in order (`read --raw` writes it out) and, when it has none to use, hashes the newest
/// buffer not hashed yet. Of 100 MB, reading takes about 12 ms of a core, hashing 32 and writing a
/// new file 28: the two threads share the 72 ms. The bytes used are the bytes hashed, read once into
/// memory of this reader's. (If the worker cannot start, the caller's thread does it all.)
final class TreeReader: ThreadWorker {
    /// Two tree pieces: every buffer but the last is read full, so each is hashed as two lanes at
    /// once. (Four pieces, hashed as four lanes, measured slower: 4 MiB buffers overflow the 2 MiB
    /// L2 cache of this CPU's cores between the read and the hash.)
    static let pieceSize = 2 * SHA256Tree.pieceSize
    /// Measured on `read --raw` of 100 MB: 3 buffers 46 ms, 2 buffers 48, 4 buffers 47.
    private static let bufferCount = 3

    private struct Buffer {
        enum State { case free, reading, read }
        var state = State.free
        var count = 0
        /// Which piece of the stream it holds, counted in buffers.
        var index = 0
        var used = false
        var hashed = false
        var hashing = false
    }

    private let memory: UnsafeMutableRawBufferPointer
    // Shared with the worker: guarded by `lock`.
    private var buffers = [Buffer](repeating: Buffer(), count: TreeReader.bufferCount)
    /// Buffers read in, not hashed and not being hashed, oldest first.
    private var unhashed: [Int] = []
    /// The tree pieces' digests, 32 bytes each, in order (zeros until hashed).
    private var digests: [UInt8] = []
    private var piecesRead = 0
    private var readEnded = false
    private var readError: (any Error)?
    private var stopping = false
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Broadcast whenever a buffer changes state, the stream ends, or `stopping` is set.
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var worker: pthread_t?
    private let read: (UnsafeMutableRawBufferPointer) throws -> Int

    /// Reads `read` to its end (it fills the buffer it is given as far as the stream goes and tells
    /// how many bytes came, 0 at the end), calling `use` with each piece in order while the pieces
    /// are hashed; returns the digest of all of it. An error of `read` or `use` is thrown once the
    /// worker has stopped. (`withWorker: false` is for tests: the way without a worker.)
    static func read(from read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int, withWorker: Bool = true,
                     _ use: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        let reader = try TreeReader(read)
        defer { reader.stop() }
        if withWorker { reader.worker = reader.startThread() }
        return try reader.run(use)
    }

    private init(_ read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        self.read = read
        let size = TreeReader.bufferCount * TreeReader.pieceSize
        // With its pages already there: 1,536 page faults one at a time cost more in a VM.
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { throw FileDescriptor.Errno.current }
        memory = UnsafeMutableRawBufferPointer(start: mapped, count: size)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        stop()
        munmap(memory.baseAddress, memory.count)
        pthread_mutex_destroy(lock)
        pthread_cond_destroy(changed)
        lock.deallocate()
        changed.deallocate()
    }

    private func bytes(_ buffer: Int, count: Int = TreeReader.pieceSize) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: memory[buffer * TreeReader.pieceSize..<buffer * TreeReader.pieceSize + count])
    }

    /// The worker: reads while a buffer is free, hashes the oldest unhashed buffer otherwise.
    func work() {
        pthread_mutex_lock(lock)
        while !stopping {
            if !readEnded, let free = buffers.firstIndex(where: { $0.state == .free }) {
                readInto(free)
            } else if !unhashed.isEmpty {
                hash(unhashed.removeFirst())
            } else if readEnded && !buffers.contains(where: \.hashing) && unhashed.isEmpty {
                break
            } else {
                pthread_cond_wait(changed, lock)
            }
        }
        pthread_mutex_unlock(lock)
    }

    /// The caller's side: uses each buffer in order, hashes when there is nothing to use, and returns
    /// the digest once everything is read, used and hashed.
    private func run(_ use: (UnsafeRawBufferPointer) throws -> Void) throws -> [UInt8] {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var next = 0
        while true {
            if let error = readError { throw error }
            if let buffer = buffers.firstIndex(where: { $0.state == .read && $0.index == next }) {
                let piece = UnsafeRawBufferPointer(bytes(buffer, count: buffers[buffer].count))
                pthread_mutex_unlock(lock)
                do {
                    try use(piece)
                } catch {
                    pthread_mutex_lock(lock)
                    throw error
                }
                pthread_mutex_lock(lock)
                buffers[buffer].used = true
                next += 1
                freeIfDone(buffer)
                pthread_cond_broadcast(changed)
            } else if readEnded && next == piecesRead {
                if let buffer = unhashed.popLast() {
                    hash(buffer)
                } else if buffers.contains(where: \.hashing) {
                    pthread_cond_wait(changed, lock)
                } else {
                    break
                }
            } else if worker == nil {
                if let buffer = unhashed.popLast() {
                    hash(buffer)
                } else if let free = buffers.firstIndex(where: { $0.state == .free }) {
                    readInto(free)
                }
            } else if let buffer = unhashed.popLast() {
                hash(buffer)
            } else {
                pthread_cond_wait(changed, lock)
            }
        }
        return SHA256Tree.root(of: digests)
    }

    /// Reads the next piece into a free buffer: called and returns with `lock` held, which it lets
    /// go of while reading.
    private func readInto(_ buffer: Int) {
        buffers[buffer].state = .reading
        let target = bytes(buffer)
        pthread_mutex_unlock(lock)
        var count = 0
        var failure: (any Error)?
        do {
            while count < target.count {
                let got = try read(UnsafeMutableRawBufferPointer(rebasing: target[count...]))
                if got == 0 { break }
                count += got
            }
        } catch {
            failure = error
        }
        pthread_mutex_lock(lock)
        defer { pthread_cond_broadcast(changed) }
        if let failure {
            readError = failure
            readEnded = true
            buffers[buffer] = Buffer()
            return
        }
        if count < target.count { readEnded = true }
        guard count > 0 else {
            buffers[buffer] = Buffer()
            return
        }
        buffers[buffer] = Buffer(state: .read, count: count, index: piecesRead)
        piecesRead += 1
        unhashed.append(buffer)
    }

    /// Hashes a buffer read in: called and returns with `lock` held, which it lets go of meanwhile.
    private func hash(_ buffer: Int) {
        buffers[buffer].hashing = true
        let piece = UnsafeRawBufferPointer(bytes(buffer, count: buffers[buffer].count))
        let firstTreePiece = buffers[buffer].index * TreeReader.pieceSize / SHA256Tree.pieceSize
        pthread_mutex_unlock(lock)
        let pieces = SHA256Tree.hashWhole(piece)
        pthread_mutex_lock(lock)
        let end = (firstTreePiece * 32) + pieces.count
        if digests.count < end { digests += repeatElement(0, count: end - digests.count) }
        digests.replaceSubrange(firstTreePiece * 32..<end, with: pieces)
        buffers[buffer].hashing = false
        buffers[buffer].hashed = true
        freeIfDone(buffer)
        pthread_cond_broadcast(changed)
    }

    private func freeIfDone(_ buffer: Int) {
        if buffers[buffer].used && buffers[buffer].hashed { buffers[buffer] = Buffer() }
    }

    /// Ends the worker: after what it is doing.
    private func stop() {
        guard let thread = worker else { return }
        pthread_mutex_lock(lock)
        stopping = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
        pthread_join(thread, nil)
        worker = nil
    }
}
