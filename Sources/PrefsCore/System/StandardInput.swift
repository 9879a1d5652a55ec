/// Standard input, read whole (for `-` in place of a file).
package enum StandardInput {
    /// All of it, or its first `limit + 1` bytes when it is longer (`FileDescriptor.readAll`).
    package static func read(atMost limit: Int = Int.max - 1) throws -> [UInt8] {
        try FileDescriptor.borrowing(0) { input in
            do throws(FileDescriptor.Errno) {
                return try input.readAll(limit: limit)
            } catch {
                throw PrefsError.cannotRead(path: "standard input", errno: error.code)
            }
        }
    }
}
