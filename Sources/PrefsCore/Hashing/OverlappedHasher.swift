import Glibc

/// The digest of a large stream (`BlobDigest`) computed on a second thread while the caller's
/// thread does the I/O with the same bytes (`update(_:while:)`): copying a blob then costs the slower
/// of the two, not their sum. The piece is only read by both threads, and it stays valid until both are done with it.
/// The second thread starts once the stream is long enough to be worth it (`worthwhile`); before
/// that, and if it cannot start, the hashing happens on the caller's thread.
final class OverlappedHasher: ThreadWorker {
    private var hasher: BlobHasher
    private var piece = UnsafeRawBufferPointer(start: nil, count: 0)
    private var stopping = false
    /// Posted by the caller when `piece` is ready (or `stopping` set); by the worker when it is hashed.
    private let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let hashed = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var worker: pthread_t?
    private var triedWorker = false
    private var count = 0

    /// The first bytes of a stream are hashed on the caller's thread: for a short one a thread costs
    /// more than it saves.
    static let worthwhile = 4 << 20

    init(_ algorithm: BlobDigest.Algorithm) {
        hasher = BlobHasher(algorithm)
        sem_init(ready, 0, 0)
        sem_init(hashed, 0, 0)
    }


    deinit {
        stop()
        sem_destroy(ready)
        sem_destroy(hashed)
        ready.deallocate()
        hashed.deallocate()
    }

    func work() {
        while true {
            while sem_wait(ready) != 0 {}
            if stopping { return }
            hasher.update(piece)
            sem_post(hashed)
        }
    }

    /// Hashes `piece` while `body` runs on this thread; returns when both are done.
    func update(_ piece: UnsafeRawBufferPointer, while body: () throws -> Void) rethrows {
        count += piece.count
        if !triedWorker && count > OverlappedHasher.worthwhile {
            triedWorker = true
            worker = startThread()
        }
        guard worker != nil else {
            hasher.update(piece)
            return try body()
        }
        self.piece = piece
        sem_post(ready)
        defer { while sem_wait(hashed) != 0 {} }
        try body()
    }

    /// The digest of everything hashed; the worker is gone after it.
    func finish() -> BlobDigest {
        stop()
        return hasher.finish()
    }

    private func stop() {
        guard let thread = worker else { return }
        stopping = true
        sem_post(ready)
        pthread_join(thread, nil)
        worker = nil
    }
}
