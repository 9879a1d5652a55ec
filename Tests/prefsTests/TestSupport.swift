import Foundation
import Testing
@testable import PrefsCore
@testable import prefs

enum Paths {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The `prefs` executable built next to the test bundle.
    static var binary: String {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent().path ?? packageRoot + "/.build/debug"
        return directory + "/prefs"
    }

    static func conformance(_ relative: String) -> String {
        (ProcessInfo.processInfo.environment["PREFS_CONFORMANCE"] ?? packageRoot + "/../shared/conformance") + "/" + relative
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/" + relative, encoding: .utf8)
    }
}

/// Output captured from a command run in-process.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []

    var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var outputBytes: [UInt8] { lock.withLock { out } }
    var error: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    func context(_ environment: [String: String] = [:]) -> CommandContext {
        CommandContext(
            environment: Environment(environment),
            writeOutput: { bytes in self.lock.withLock { self.out += bytes } },
            writeError: { bytes in self.lock.withLock { self.err += bytes } })
    }
}

/// Runs `prefs` in-process with the given arguments and environment.
func prefs(_ arguments: [String], environment: [String: String] = [:]) -> (status: PrefsCore.ExitStatus, output: String, error: String, bytes: [UInt8]) {
    let captured = Captured()
    let status = CommandLineTool.run(arguments, context: captured.context(environment))
    return (status, captured.output, captured.error, captured.outputBytes)
}

struct ProcessResult {
    let status: Int32
    let output: [UInt8]
    let error: String
    var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// Runs the built `prefs` binary as a real process.
func runBinary(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]) throws -> ProcessResult {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let inputURL = scratch.appendingPathComponent("stdin"), errorURL = scratch.appendingPathComponent("stderr")
    try Data(input).write(to: inputURL)
    try Data().write(to: errorURL)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Paths.binary)
    process.arguments = arguments
    process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
    let stdout = Pipe()
    process.standardInput = try FileHandle(forReadingFrom: inputURL)
    process.standardOutput = stdout
    process.standardError = try FileHandle(forWritingTo: errorURL)
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, output: [UInt8](output),
                         error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
}

/// A temporary directory removed when released.
final class Scratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }
}
