/// Which machine this is, for ByHost suites (`-currentHost`): the name in their files.
extension Environment {
    /// This machine's host ID: `$PREFS_HOST_ID` when set, else the contents of `/etc/machine-id`
    /// (read through `fileSystem`, at most `machineIDMaximumSize` bytes); nil when neither gives one
    /// (no file, an empty one, or systemd's `uninitialized`). A value that cannot be a host ID is
    /// refused: `$PREFS_HOST_ID` with 64, the file with 65 naming it — also one larger than the
    /// bound, and a FIFO, socket or device (`/dev/zero`), which is never opened: it could hold the
    /// read forever.
    package func hostID(fileSystem: any FileSystem) throws -> String? {
        if let given = try self["PREFS_HOST_ID"] {
            guard Environment.isHostID(given) else {
                throw refused("PREFS_HOST_ID", value: given, accepted: Environment.hostIDRule)
            }
            return given
        }
        let bytes: [UInt8]
        do {
            guard let status = try fileSystem.status(of: machineIDFile) else { return nil }
            if status.isSpecial { throw notAMachineID("not a regular file") }
            bytes = try fileSystem.contents(of: machineIDFile, atMost: Environment.machineIDMaximumSize)
        } catch PrefsError.fileNotFound {
            return nil
        }
        guard bytes.count <= Environment.machineIDMaximumSize else {
            throw notAMachineID("larger than \(Environment.machineIDMaximumSize) bytes")
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        if text.isEmpty || text == "uninitialized" { return nil }
        guard Environment.isHostID(text) else { throw notAMachineID(nil) }
        return text
    }

    /// The most of `/etc/machine-id` that is read: a machine ID is 32 hex digits and a newline, and
    /// a host ID at most 200 bytes.
    package static let machineIDMaximumSize = 256

    func notAMachineID(_ detail: String?) -> PrefsError {
        .malformed(source: machineIDFile, format: nil, reason: "not a machine ID\(detail.map { " (\($0))" } ?? ""); set \(settingName("PREFS_HOST_ID")) to \(Environment.hostIDRule)")
    }

    /// What a host ID may be: it becomes part of a file name.
    package static let hostIDRule = "1 to 200 letters, digits, '.', '-' or '_', not starting with '.'"

    package static func isHostID(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, first != UInt8(ascii: "."), bytes.count <= 200 else { return false }
        return bytes.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F }
    }
}

