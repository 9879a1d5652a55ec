import Foundation
import Testing
@testable import PrefsCore

/// Whoever asks for compact JSON gets one line of JSON, from every verb that prints JSON: `read`
/// (`--json --compact`, or `--compact` alone), `find`, `export` (no format given) and `watch`; run
/// through the built binary.
@Suite(.runsProcesses) struct CompactJSONTests {
    static func sandbox() async throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox()
        try await sandbox.prefs("write", "app", "name", "Ada", "size", "-int", "3", "window", "-dict", "w", "-int", "640")
        return sandbox
    }

    @Test(arguments: [
        (["read", "app", "--json", "--compact"], #"{"name":"Ada","size":3,"window":{"w":640}}"# + "\n"),
        (["read", "app", "--compact"], #"{"name":"Ada","size":3,"window":{"w":640}}"# + "\n"),
        (["read", "app", "window", "--json", "--compact"], #"{"w":640}"# + "\n"),
        (["read", "app", "size", "--compact"], "3\n"),
        (["read", "app", "window", "--origin", "--json", "--compact"], #"{"origin":"stored","value":{"w":640}}"# + "\n"),
        (["find", "ada", "--json", "--compact"], #"[{"key":"name","suite":"app","value":"Ada"}]"# + "\n"),
        (["find", "ada", "--compact"], #"[{"key":"name","suite":"app","value":"Ada"}]"# + "\n"),
        (["export", "app", "-", "--compact"], #"{"name":"Ada","size":3,"window":{"w":640}}"#),
        (["export", "app", "-", "--keys", "size", "--compact"], #"{"size":3}"#),
    ] as [([String], String)])
    func compactJSONIsOneLine(arguments: [String], output: String) async throws {
        let sandbox = try await Self.sandbox()
        let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
        #expect(run.error == "")
        #expect(run.status == 0)
        #expect(run.outputText == output)
        let document = run.outputText.hasSuffix("\n") ? String(run.outputText.dropLast()) : run.outputText
        #expect(!document.contains("\n"))
    }

    /// `watch` prints a JSON object per line already: `--compact` asks for that form too.
    @Test func watchTakesCompactForItsJSONLines() async throws {
        let sandbox = try await Self.sandbox()
        let run = try await runProcess(Paths.binary, ["watch", "app", "--compact", "--initial", "--timeout", "0"], environment: sandbox.environment)
        #expect(run.status == 0)
        #expect(run.error == "")
        let lines = run.outputText.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"suite\":\"app\",") && $0.hasSuffix("}") }, "\(run.outputText)")
    }

    /// `--compact` is JSON's: with a form that is not JSON it is still refused, naming both.
    @Test(arguments: [
        (["read", "app", "--keys", "--compact"], "prefs: read: --compact and --keys cannot be combined (--compact prints JSON)\n"),
        (["read", "app", "name", "--raw", "--compact"], "prefs: read: --compact and --raw cannot be combined (--compact prints JSON)\n"),
        (["read", "app", "--format", "xml", "--compact"], "prefs: --compact is for --format json and typed-json, not xml\n"),
        (["read", "app", "--lossy"], "prefs: read: --lossy needs --format\n"),
        (["find", "ada", "--compact", "-0"], "prefs: find: --compact and --null cannot be combined\n"),
        (["export", "app", "$BOX/out.plist", "--compact"], "prefs: --compact is for --format json and typed-json, not xml\n"),
    ] as [([String], String)])
    func compactWithAFormThatIsNotJSONIsRefused(arguments: [String], error: String) async throws {
        let sandbox = try await Self.sandbox()
        let run = try await runProcess(Paths.binary, arguments.map { $0.replacingOccurrences(of: "$BOX", with: sandbox.directory.path) },
                                 environment: sandbox.environment)
        #expect(run.status == 64)
        #expect(run.error == error)
        #expect(run.outputText == "")
    }
}
