import Glibc

/// An open file descriptor this process owns: not copyable, closed exactly once — when the value
/// goes away, or by `close()`, which consumes it. One thin, typed wrapper per system call, in the
/// manner of swift-system: EINTR is retried and failures come back as the errno value for the caller
/// to map (with the path) into a `PrefsError`. A descriptor owned elsewhere (standard input or
/// output) is lent with `borrowing(_:_:)` and never closed.
struct FileDescriptor: ~Copyable {
    let raw: Int32

    init(owning raw: Int32) { self.raw = raw }

    deinit { _ = Glibc.close(raw) }

    consuming func close() {
        _ = Glibc.close(raw)
        discard self
    }

    /// Gives the descriptor up without closing it.
    private consuming func relinquish() { discard self }

    /// Lends `raw` (owned elsewhere: 0, 1, 2) to `body` as a `FileDescriptor`; it stays open.
    static func borrowing<T>(_ raw: Int32, _ body: (borrowing FileDescriptor) throws -> T) throws -> T {
        let descriptor = FileDescriptor(owning: raw)
        do {
            let result = try body(descriptor)
            descriptor.relinquish()
            return result
        } catch {
            descriptor.relinquish()
            throw error
        }
    }

    struct Errno: Error, Equatable {
        let code: Int32
        static var current: Errno { Errno(code: errno) }
        static let notFound = Errno(code: ENOENT)
        static let exists = Errno(code: EEXIST)
    }

    /// Runs a system call until it is not interrupted; a negative result is the errno failure.
    static func retrying<T: BinaryInteger>(_ body: () -> T) throws(Errno) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno != EINTR { throw Errno.current }
        }
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try retrying { Glibc.open(path, flags | O_CLOEXEC, mode) })
    }

    /// `openat(2)` relative to this directory.
    func open(_ name: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try FileDescriptor.retrying { openat(raw, name, flags | O_CLOEXEC, mode) })
    }

    func status() throws(Errno) -> stat {
        var info = stat()
        _ = try FileDescriptor.retrying { fstat(raw, &info) }
        return info
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes came.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var count = 0
        while count < buffer.count {
            let n = try FileDescriptor.retrying { Glibc.read(raw, buffer.baseAddress! + count, buffer.count - count) }
            if n == 0 { break }
            count += n
        }
        return count
    }

    /// Reads at `offset` until `buffer` is full or the file ends (`pread`); how many bytes came.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try FileDescriptor.read(raw, at: offset, into: buffer)
    }

    static func read(_ raw: Int32, at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var count = 0
        while count < buffer.count {
            let n = try FileDescriptor.retrying { pread(raw, buffer.baseAddress! + count, buffer.count - count, off_t(offset + count)) }
            if n == 0 { break }
            count += n
        }
        return count
    }

    /// Everything up to end of file, or the first `limit + 1` bytes of a longer one: reading stops
    /// there, so a source that never ends (`/dev/zero`, a pipe) is not read for ever and a caller
    /// tells "larger than `limit`" by the count. `sizeHint` (the file's size) lets the whole file
    /// arrive in one buffer that is never zero-filled first.
    func readAll(sizeHint: Int = 0, limit: Int = Int.max - 1) throws(Errno) -> [UInt8] {
        var capacity = Swift.min(Swift.max(sizeHint + 1, 4096), limit + 1)
        var result = [UInt8]()
        while true {
            var failure: Errno?
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                do throws(Errno) {
                    count = try read(into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    failure = error
                    count = 0
                }
            }
            if let failure { throw failure }
            result += chunk
            if chunk.count < capacity || result.count > limit { return result }
            capacity = Swift.min(capacity * 2, limit + 1 - result.count)
        }
    }

    func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var failure: Errno?
        bytes.withUnsafeBytes { buffer in
            do throws(Errno) { try writeAll(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var written = 0
        while written < buffer.count {
            written += try FileDescriptor.retrying { Glibc.write(raw, buffer.baseAddress! + written, Swift.min(buffer.count - written, 1 << 30)) }
        }
    }

    /// The piece of a stream hashed on another thread while this one does the I/O
    /// (`OverlappedHasher`): each piece handed over costs a wake-up of the other thread (tens of
    /// microseconds in a virtual machine), so pieces are large: two `SHA256Tree` pieces, so that a
    /// stream read from its start hashes them two at a time.
    static let overlappedPiece = 2 * SHA256Tree.pieceSize

    /// Reads from where the file is to its end in pieces of up to `overlappedPiece`, two buffers in
    /// turn: `body` gets each piece and a function that reads the next one into the other buffer, to
    /// call while the piece is still being used — a large value's SHA-256 is computed on another
    /// thread meanwhile (`BlobSink.write(_:while:)`), so reading the file overlaps hashing as writing
    /// the blob does. A `body` that never calls it has the next piece read after it returns.
    /// When `streamed` bytes of the stream came before (a head read to decide where the value goes),
    /// the first piece is shorter, so that the ones after it start on a multiple of
    /// `overlappedPiece` in the whole stream and their `SHA256Tree` pieces are hashed two at a time.
    func forEachChunk(after streamed: Int = 0, overlapping body: (UnsafeRawBufferPointer, _ readNext: () throws -> Void) throws -> Void) throws {
        try FileDescriptor.forEachPiece(after: streamed, reading: { buffer in try read(into: buffer) }, body)
    }

    /// `forEachChunk(overlapping:)` of any source: `read` fills a buffer and tells how many bytes
    /// came (0 at the end).
    static func forEachPiece(after streamed: Int = 0, reading read: (UnsafeMutableRawBufferPointer) throws -> Int,
                             _ body: (UnsafeRawBufferPointer, _ readNext: () throws -> Void) throws -> Void) throws {
        let chunk = FileDescriptor.overlappedPiece
        let buffers = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * chunk, alignment: 64)
        defer { buffers.deallocate() }
        // `read` is also called from the closure handed to `body`, never while `body` runs it.
        try withoutActuallyEscaping(read) { read in
            var current = 0
            var count = try read(UnsafeMutableRawBufferPointer(rebasing: buffers[..<(chunk - streamed % chunk)]))
            while count > 0 {
                let other = UnsafeMutableRawBufferPointer(rebasing: buffers[(1 - current) * chunk..<(2 - current) * chunk])
                var next: Int?
                try body(UnsafeRawBufferPointer(rebasing: buffers[current * chunk..<current * chunk + count])) {
                    if next == nil { next = try read(other) }
                }
                count = try next ?? read(other)
                current = 1 - current
            }
        }
    }

    func sync() throws(Errno) {
        _ = try FileDescriptor.retrying { fsync(raw) }
    }

    /// `flock(2)` without waiting: false when another holds a conflicting lock.
    func tryLock(_ operation: Int32) throws(Errno) -> Bool {
        while flock(raw, operation | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw Errno.current }
        }
        return true
    }

    /// `flock(2)`, waiting.
    func lock(_ operation: Int32) throws(Errno) {
        _ = try FileDescriptor.retrying { flock(raw, operation) }
    }
}

extension off_t {
    /// A file size as an `Int`.
    var asInt: Int { Int(self) }
}
