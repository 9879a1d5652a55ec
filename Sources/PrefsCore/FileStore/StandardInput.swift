/// Standard input, read whole (for `-` in place of a file).
public enum StandardInput {
    public static func read() throws -> [UInt8] {
        try FileDescriptor.borrowing(0) { input in
            do throws(FileDescriptor.Errno) {
                return try input.readAll()
            } catch {
                throw PrefsError.cannotRead(path: "standard input", errno: error.code)
            }
        }
    }
}
