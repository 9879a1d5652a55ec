#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thin, typed wrapper per system call, in the manner of swift-system: EINTR is retried and
/// failures come back as the errno value for the caller to map (with the path) into a `PrefsError`.
struct FileDescriptor {
    let raw: Int32

    struct Errno: Error, Equatable {
        let code: Int32
        static var current: Errno { Errno(code: errno) }
        static let notFound = Errno(code: ENOENT)
        static let exists = Errno(code: EEXIST)
    }

    static func retrying(_ body: () -> Int32) throws(Errno) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// For read/write, which return a byte count.
    static func retryingCount(_ body: () -> Int) throws(Errno) -> Int {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno != EINTR { throw Errno.current }
        }
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        FileDescriptor(raw: try retrying { Glibc.open(path, flags | O_CLOEXEC, mode) })
    }

    func close() {
        _ = Glibc.close(raw)
    }

    func status() throws(Errno) -> stat {
        var info = stat()
        _ = try FileDescriptor.retrying { fstat(raw, &info) }
        return info
    }

    /// Everything up to end of file.
    func readAll(sizeHint: Int = 0) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Swift.max(sizeHint + 1, 4096))
        var used = 0
        while true {
            if used == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
            let count = try FileDescriptor.retryingCount {
                bytes.withUnsafeMutableBytes { Glibc.read(raw, $0.baseAddress! + used, $0.count - used) }
            }
            if count == 0 { break }
            used += count
        }
        bytes.removeSubrange(used...)
        return bytes
    }

    func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var written = 0
        while written < bytes.count {
            written += try FileDescriptor.retryingCount {
                bytes.withUnsafeBytes { Glibc.write(raw, $0.baseAddress! + written, Swift.min($0.count - written, 1 << 30)) }
            }
        }
    }

    func sync() throws(Errno) {
        _ = try FileDescriptor.retrying { fsync(raw) }
    }
}
