import Foundation
import Testing
@testable import PrefsCore

/// Registered defaults with the real binary on temporary XDG directories: a package's read-only
/// defaults directory, the user's registration file, the suite, and Foundation's UserDefaults
/// reading the suite next to them.
@Suite(.runsProcesses) struct LayersEndToEndTests {
    /// A package ships `app` defaults in a read-only directory, as a system package would.
    static func shippingBox() throws -> (ProcessSandbox, String) {
        let sandbox = try ProcessSandbox()
        let directory = sandbox.packages + "/prefs/defaults"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/app.plist"
        try Data(try PropertyList.encode(["theme": "dark", "size": 12, "flags": ["beta": false]], as: .binary))
            .write(to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o444) == 0 && chmod(directory, 0o555) == 0 && chmod(sandbox.packages + "/prefs", 0o555) == 0)
        return (sandbox, file)
    }

    /// Everything under a directory: path → bytes, mode, inode and modification time.
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var info = stat()
            let path = root + "/" + name
            #expect(lstat(path, &info) == 0)
            let bytes = (info.st_mode & S_IFMT) == S_IFREG ? (try Fixtures.bytes(path)).description : "dir"
            result[name] = "\(bytes) \(info.st_mode) \(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return result
    }

    @Test func theDefaultShowsWithItsOriginAndResetBringsItBackAfterAWrite() async throws {
        let (sandbox, shipped) = try LayersEndToEndTests.shippingBox()
        let package = try LayersEndToEndTests.snapshot(sandbox.packages)
        var read = try await sandbox.prefs("read", "app", "theme")
        #expect(read.status == 0 && read.outputText == "dark\n", "\(read.error)")
        #expect(try await sandbox.prefs("read", "app", "theme", "--origin").outputText == "registered:\(shipped)\tdark\n")
        // Reads have no side effects: no configuration or data directory appeared.
        #expect(!FileManager.default.fileExists(atPath: sandbox.config) && !FileManager.default.fileExists(atPath: sandbox.data))

        #expect(try await sandbox.prefs("write", "app", "theme", "light", "--exit-code").status == 3)
        #expect(try await sandbox.prefs("read", "app", "theme", "--origin").outputText == "stored\tlight\n")
        #expect(try sandbox.suite("app") == ["theme": "light"])

        let registered = try await sandbox.prefs("register", "app", "-", input: Array(#"{"theme": "solarized", "size": 14}"#.utf8))
        #expect(registered.status == 0, "\(registered.error)")
        #expect(try await sandbox.prefs("read", "app", "--origin").outputText == """
            registered:\(shipped)\tflags\t{ beta = false; }
            registered:\(sandbox.data)/prefs/defaults/app.plist\tsize\t14
            stored\ttheme\tlight

            """)
        #expect(try await sandbox.prefs("reset", "app", "--exit-code").status == 3)
        read = try await sandbox.prefs("read", "app", "theme", "--origin")
        #expect(read.outputText == "registered:\(sandbox.data)/prefs/defaults/app.plist\tsolarized\n")
        #expect(try await sandbox.prefs("reset", "app", "theme", "--exit-code").status == 0)
        #expect(try sandbox.files().isEmpty)
        #expect(try await sandbox.prefs("register", "app", "--delete", "theme", "--delete", "size").status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.data + "/prefs/defaults/app.plist"))
        #expect(try await sandbox.prefs("read", "app", "theme").outputText == "dark\n")

        // The package's files and directories are exactly as they were: only ever read.
        #expect(try LayersEndToEndTests.snapshot(sandbox.packages) == package)
    }

    @Test func aBrokenShippedFileIsReportedAndTheSuiteStaysReadable() async throws {
        let (sandbox, shipped) = try LayersEndToEndTests.shippingBox()
        try await sandbox.prefs("write", "app", "theme", "light")
        chmod(sandbox.packages + "/prefs/defaults", 0o755)
        chmod(shipped, 0o644)
        try Data("bplist00 broken".utf8).write(to: URL(fileURLWithPath: shipped))
        let read = try await sandbox.prefs("read", "app", "theme")
        #expect(read.status == 65 && read.outputText.isEmpty)
        #expect(read.error.hasPrefix("prefs: \(shipped): "), "\(read.error)")
        #expect(try await sandbox.prefs("read", "app", "theme", "--stored").outputText == "light\n")
        #expect(try await sandbox.prefs("read", "app", "theme", "--defaults", "/nonexistent.plist").status == 66)
    }

    @Test func dryRunsCreateNothingOnDisk() async throws {
        let sandbox = try ProcessSandbox()
        let write = try await sandbox.prefs("write", "app", "k", "-int", "1", "--dry-run", "--exit-code")
        #expect(write.status == 3 && write.outputText == "+ k = 1\n")
        let register = try await sandbox.prefs("register", "app", "k", "v", "--dry-run")
        #expect(register.status == 0 && register.outputText == "+ k = v\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted() == [])
    }

    /// Registered defaults are prefs' own: a Swift program using UserDefaults sees exactly the
    /// stored values in its file, and prefs still reads what that program writes.
    @Test func userDefaultsSeesOnlyTheStoredValues() async throws {
        let (sandbox, _) = try LayersEndToEndTests.shippingBox()
        try #require(await sandbox.prefs("register", "shared", "integer", "-int", "1", "fromRegistration", "x").status == 0)
        try #require(await sandbox.prefs("write", "shared", "string", "hello", "integer", "-int", "42").status == 0)
        try #require(await sandbox.prefs("write", "shared", "counter", "-int-add", "3").status == 0)
        let read = try await runProcess(Paths.userDefaultsHelper, ["read", "shared"], environment: sandbox.environment)
        #expect(read.status == 0, "\(read.error)")
        #expect(read.outputText == "counter\tinteger\t3\ninteger\tinteger\t42\nstring\tstring\thello\n")
        try #require(await sandbox.prefs("reset", "shared", "integer").status == 0)
        let afterReset = try await runProcess(Paths.userDefaultsHelper, ["read", "shared"], environment: sandbox.environment)
        #expect(afterReset.outputText == "counter\tinteger\t3\nstring\tstring\thello\n")
        #expect(try await sandbox.prefs("read", "shared", "integer", "--origin").outputText == "registered:\(sandbox.data)/prefs/defaults/shared.plist\t1\n")
    }
}
