import Foundation
import Testing
@testable import PrefsCore
@testable import PrefsCommand

@_exported import PrefsTestSupport

enum Paths {
    /// The directory the test bundle and the built executables are in.
    static var products: String {
        Bundle.main.executableURL?.deletingLastPathComponent().path ?? Fixtures.packageRoot + "/.build/debug"
    }

    /// The `prefs` executable built next to the test bundle.
    static var binary: String { products + "/prefs" }

    /// The Foundation UserDefaults program built for the interoperability tests.
    static var userDefaultsHelper: String { products + "/UserDefaultsHelper" }

    static func text(_ relative: String) throws -> String { try Fixtures.text(relative) }
}

/// A suite whose tests run processes and wait for them: each of its tests takes a place among the
/// `TestConcurrency.tests` that run at once before it starts (unless its suite runs one test at a
/// time: then its processes have priority instead), and gives it back when it ends.
struct RunsProcesses: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }  // the suite itself: its tests take the places
        if test.traits.contains(where: { $0 is ParallelizationTrait }) {
            // A chain of tests that ends last: its processes go first (`TestConcurrency.priority`).
            try await TestConcurrency.$priority.withValue(1) { try await function() }
        } else {
            try await TestConcurrency.tests.run { try await function() }
        }
    }
}

extension Trait where Self == RunsProcesses {
    /// The suite's tests run processes: see `RunsProcesses`.
    static var runsProcesses: Self { Self() }
}

/// Output captured from a command run in-process.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []

    var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var outputBytes: [UInt8] { lock.withLock { out } }
    var error: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    func context(_ environment: [String: String] = [:], fileSystem: any FileSystem = LocalFileSystem()) -> CommandContext {
        CommandContext(
            fileSystem: fileSystem, environment: Environment(isolatingConfigDirectories(environment)),
            writeOutput: { bytes in self.lock.withLock { self.out += bytes } },
            writeError: { bytes in self.lock.withLock { self.err += bytes } })
    }
}

/// Runs `prefs` in-process with the given arguments, environment and file system.
func prefs(_ arguments: [String], environment: [String: String] = [:], fileSystem: any FileSystem = LocalFileSystem())
    -> (status: PrefsCore.ExitStatus, output: String, error: String, bytes: [UInt8])
{
    let captured = Captured()
    let status = CommandLineTool.run(arguments, context: captured.context(environment, fileSystem: fileSystem))
    return (status, captured.output, captured.error, captured.outputBytes)
}

/// A home directory on an in-memory file system (`XDG_CONFIG_HOME` and the data directories under
/// `/home/u`), where `prefs` runs in-process: `run` gives what it printed and its exit status,
/// `suite` what it left in the store.
final class InMemoryHome: @unchecked Sendable {
    let fileSystem = InMemoryFileSystem()
    let environment = ["XDG_CONFIG_HOME": "/home/u/.config", "HOME": "/home/u", "XDG_DATA_DIRS": "/usr/share/pkg:/usr/share",
                       "PREFS_LOCK_TIMEOUT": "0.5"]

    @discardableResult
    func run(_ arguments: String...) -> (status: PrefsCore.ExitStatus, output: String, error: String) {
        run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String]) -> (status: PrefsCore.ExitStatus, output: String, error: String) {
        let result = prefs(arguments, environment: environment, fileSystem: fileSystem)
        return (result.status, result.output, result.error)
    }

    /// The suite's stored value; nil only when its file does not exist.
    func suite(_ name: String) throws -> PrefValue? {
        let bytes: [UInt8]
        do { bytes = try fileSystem.contents(of: "/home/u/.config/\(name).plist") } catch PrefsError.fileNotFound { return nil }
        return try PropertyList.decode(bytes).value
    }

    func files() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try fileSystem.contentsOfDirectory("/home/u/.config") {
            files[name] = try fileSystem.contents(of: "/home/u/.config/" + name)
        }
        return files
    }
}

/// Runs the built `prefs` binary as a real process.
func runBinary(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:],
               timeout: Double = defaultProcessTimeout) async throws -> ProcessResult {
    try await runProcess(Paths.binary, arguments, input: input, environment: environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a },
                   timeout: timeout)
}

/// A temporary XDG configuration directory for real processes, and the environment pointing at it.
final class ProcessSandbox {
    let directory: TemporaryDirectory
    var config: String { directory.path + "/config" }
    /// `$XDG_DATA_HOME`, where `prefs register` writes.
    var data: String { directory.path + "/data" }
    /// The one `$XDG_DATA_DIRS` directory, where packages ship registered defaults.
    var packages: String { directory.path + "/packages" }
    /// The one `$XDG_CONFIG_DIRS` directory, where an administrator keeps managed values
    /// (`prefs/managed/`) and system defaults (`prefs/defaults/`).
    var administered: String { directory.path + "/xdg" }
    /// More variables for every process run in the sandbox. `PREFS_HOST_ID` is set, so no process
    /// reads this machine's `/etc/machine-id`.
    var extraEnvironment: [String: String] = ["PREFS_HOST_ID": "sandbox"]
    var environment: [String: String] {
        ["XDG_CONFIG_HOME": config, "XDG_DATA_HOME": data, "XDG_DATA_DIRS": packages, "XDG_CONFIG_DIRS": administered, "HOME": directory.path,
         "PATH": Paths.products + ":/usr/bin:/bin"].merging(extraEnvironment) { $1 }
    }

    init() throws { directory = try TemporaryDirectory() }

    /// Runs the built `prefs` in the sandbox, awaited (`runProcess`).
    @discardableResult
    func prefs(_ arguments: String..., input: [UInt8] = [], timeout: Double = defaultProcessTimeout) async throws -> ProcessResult {
        try await runProcess(Paths.binary, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Runs a shell script with the sandbox's environment (and `prefs` on PATH).
    func shell(_ script: String, timeout: Double = defaultProcessTimeout) async throws -> ProcessResult {
        try await runProcess("/bin/bash", ["-c", script], environment: environment, timeout: timeout)
    }

    /// The suite's stored value; nil only when its file does not exist (any other failure to read
    /// it throws).
    func suite(_ name: String) throws -> PrefValue? {
        let path = config + "/" + name + ".plist"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try PropertyList.decode(try Fixtures.bytes(path)).value
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: config).sorted()
    }
}

