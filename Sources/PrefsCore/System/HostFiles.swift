/// The host's own files, read whatever file system the store is on (`/etc/passwd`, for `~USER`).
enum HostFiles {
    /// A host file read whole as a document is (`DocumentInput.fileBytes`): at most `limit` bytes,
    /// never a FIFO's wait.
    static func read(_ path: String, atMost limit: Int, what: String) throws -> [UInt8] {
        try DocumentInput(fileSystem: LocalFileSystem()).fileBytes(path, atMost: limit, what: what)
    }
}
