/// Standard input, read whole (for `-` in place of a file).
public enum StandardInput {
    public static func read() throws -> [UInt8] {
        do {
            return try FileDescriptor(raw: 0).readAll()
        } catch {
            throw PrefsError.cannotRead(path: "standard input", errno: error.code)
        }
    }
}
