import Foundation

/// Paths of the repository and its conformance corpora (Tests/Conformance), for both test targets.
public enum Fixtures {
    /// The package root, found from this file's path (Tests/PrefsTestSupport/TestSupport.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `Tests/Conformance` in the checkout (see its README for where each corpus comes from). Tests
    /// that need it fail, never skip, when it is missing.
    public static func conformance(_ relative: String = "") throws -> String {
        let base = packageRoot + "/Tests/Conformance"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TestFailure("conformance corpora not found at \(base)")
        }
        return relative.isEmpty ? base : base + "/" + relative
    }

    /// Files directly inside a conformance folder, sorted; fails when there are none.
    public static func conformanceFiles(_ folder: String, matching suffix: String = "") throws -> [String] {
        let directory = try conformance(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(suffix) }.sorted()
        guard !names.isEmpty else { throw TestFailure("no files in \(directory)") }
        return names.map { directory + "/" + $0 }
    }

    public static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/" + relative, encoding: .utf8)
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/prefs-test-XXXXXX").utf8CString)
        guard let result = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: result)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }
}

public struct ProcessResult {
    public let status: Int32
    public let output: [UInt8]
    public let error: String
    public var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// Runs a program to completion, feeding `input` to its standard input. Standard input and error
/// go through temporary files so only standard output needs a pipe.
public func runProcess(_ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil) throws -> ProcessResult {
    let scratch = try TemporaryDirectory()
    let inputPath = try scratch.write("stdin", input)
    let errorPath = try scratch.write("stderr", [])
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdout = Pipe()
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
    process.standardOutput = stdout
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, output: [UInt8](output),
                         error: String(decoding: try Fixtures.bytes(errorPath), as: UTF8.self))
}

/// The absolute path of a program on PATH; fails (not skips) when it is missing.
public func requireProgram(_ name: String, install hint: String) throws -> String {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure("\(name) is not installed (\(hint)); .ci/run installs it")
}
