import Foundation
import Testing
@testable import PrefsCore

/// Schemas, running the built `prefs` with the XDG variables pointing at a temporary directory:
/// each rule on every path that stores, with nothing changed when one is broken; `--no-schema`;
/// untyped values taking the schema's type; `describe`, `check`, origins; a package's schema
/// overridden by the user's.
@Suite(.runsProcesses) struct SchemaEndToEndTests {
    static let schema = #"""
        {"allowUndeclaredKeys": false,
         "keys": {"timeout": {"type": "integer", "default": 30, "min": 1, "max": 300, "description": "seconds before giving up"},
                  "level": {"type": "string", "choices": ["debug", "info", "warn"], "default": "info"},
                  "ports": {"type": "array", "element": "integer", "min": 1, "max": 65535},
                  "name": {"type": "string"},
                  "ratio": {"type": "float", "min": 0, "max": 1},
                  "opts": {"type": "dictionary"}}}
        """#

    /// A sandbox with the schema installed for `app`, and `app` holding a valid value for each key.
    static func sandbox() async throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox()
        let file = try sandbox.directory.write("schema.json", schema)
        let installed = try await sandbox.prefs("register", "app", "--schema", file)
        try #require(installed.status == 0, "\(installed.error)")
        for words in [["timeout", "-int", "10", "level", "info", "name", "x", "ratio", "-float", "0.5"], ["ports", "-array", "-int", "80"],
                      ["opts", "-dict", "a", "-int", "1"]] {
            let written = try await runProcess(Paths.binary, ["write", "app"] + words, environment: sandbox.environment)
            try #require(written.status == 0, "\(written.error)")
        }
        return sandbox
    }

    func bytes(_ path: String) -> [UInt8]? { try? Fixtures.bytes(path) }

    /// Each rule (type, range, choices, undeclared key) on each path that stores: 65 naming the
    /// key, what was expected and what was given, and the suite and the registration untouched.
    /// DOC is a file holding the case's document.
    static let refusals: [(arguments: [String], document: String, key: String, says: String)] = [
        (["write", "app", "timeout", "-string", "ten"], "", "timeout", #"expected an integer from 1 to 300, not "ten" (a string)"#),
        (["write", "app", "timeout", "-int", "301"], "", "timeout", "expected an integer from 1 to 300, not 301"),
        (["write", "app", "level", "trace"], "", "level", #"expected a string, one of "debug", "info", "warn", not "trace""#),
        (["write", "app", "timout", "-int", "5"], "", "timout", "not a key the schema declares"),
        (["write", "app", "name", "y", "timeout", "-int", "0"], "", "timeout", "not 0"),
        (["write", "app", "timeout", "-int", "500", "--dry-run"], "", "timeout", "not 500"),
        (["write", "app", "opts", "-string", "x"], "", "opts", #"expected a dictionary, not "x" (a string)"#),
        (["write", "app", "{ timeout = 5; bogus = 1; }"], "", "bogus", "not a key the schema declares"),
        (["write", "app", "{ timeout = 5; level = loud; }"], "", "level", #"not "loud""#),
        (["write", "app", ":ports:0", "-string", "x"], "", "ports", #"but element 0 is "x" (a string)"#),
        (["write", "app", ":ports:1", "-int", "70000"], "", "ports", "but element 1 is 70000"),
        (["write", "app", ":opts:b", "-int", "1", ":nope:c", "1"], "", "nope", "not a key the schema declares"),
        (["write", "app", "ports", "-array-add", "-int", "0"], "", "ports", "but element 1 is 0"),
        (["write", "app", "ports", "-array-add", "x"], "", "ports", #"but element 1 is "x" (a string)"#),
        (["write", "app", "timeout", "-int-add", "1000"], "", "timeout", "not 1010"),
        (["write", "app", "ratio", "-float-add", "1"], "", "ratio", "expected a float from 0 to 1, not 1.5"),
        (["write", "app", "extra", "-int-add", "1"], "", "extra", "not a key the schema declares"),
        (["rename", "app", "name", "timeout"], "", "timeout", #"not "x" (a string)"#),
        (["rename", "app", "name", "level"], "", "level", #"not "x""#),
        (["rename", "app", "name", "nickname"], "", "nickname", "not a key the schema declares"),
        (["import", "app", "DOC"], #"{"timeout": "20"}"#, "timeout", #"not "20" (a string)"#),
        (["import", "app", "DOC"], #"{"timeout": 0}"#, "timeout", "not 0"),
        (["import", "app", "DOC"], #"{"timeout": 20, "level": "loud"}"#, "level", #"not "loud""#),
        (["import", "app", "DOC"], #"{"extra": 1}"#, "extra", "not a key the schema declares"),
        (["import", "app", "DOC", "--replace"], #"{"level": "info", "extra": 1}"#, "extra", "not a key the schema declares"),
        (["migrate", "app", "DOC", "--overwrite"], #"{"ratio": 1}"#, "ratio", "not 1 (an integer)"),
        (["migrate", "app", "DOC", "--overwrite"], #"{"timeout": 301}"#, "timeout", "not 301"),
        (["migrate", "app", "DOC", "--overwrite"], #"{"level": "loud"}"#, "level", #"not "loud""#),
        (["migrate", "app", "DOC"], #"{"extra": "1"}"#, "extra", "not a key the schema declares"),
        (["register", "app", "timeout", "-string", "x"], "", "timeout", #"not "x" (a string)"#),
        (["register", "app", "timeout", "-int", "500"], "", "timeout", "not 500"),
        (["register", "app", "{ level = loud; }"], "", "level", #"not "loud""#),
        (["register", "app", "extra", "1"], "", "extra", "not a key the schema declares"),
        (["register", "app", "DOC"], #"{"ports": [1, 0]}"#, "ports", "but element 1 is 0"),
        (["load", "DOC"], dump(#"{"timeout": {"integer": 0}}"#), "timeout", "not 0"),
        (["load", "DOC"], dump(#"{"level": {"string": "loud"}}"#), "level", #"not "loud""#),
    ]

    /// A dump (`prefs dump`) holding `app` with these typed-JSON members.
    static func dump(_ members: String) -> String {
        #"{"prefs-typed-json": 1, "value": {"dictionary": {"prefs-dump": {"integer": 1}, "suites": {"dictionary": {"app": {"dictionary": "#
            + members + "}}}}}}"
    }

    @Test(arguments: refusals.indices)
    func everyPathThatStoresIsChecked(index: Int) async throws {
        let (arguments, text, key, says) = SchemaEndToEndTests.refusals[index]
        let sandbox = try await SchemaEndToEndTests.sandbox()
        let document = try sandbox.directory.write("doc.json", text)
        let suite = sandbox.config + "/app.plist", registration = sandbox.data + "/prefs/defaults/app.plist"
        let before = bytes(suite)
        let run = try await runProcess(Paths.binary, arguments.map { $0 == "DOC" ? document : $0 }, environment: sandbox.environment)
        #expect(run.status == 65, "\(arguments): \(run.error)")
        let domain = arguments[0] == "register" ? "app (registered)" : "app"
        #expect(run.error.hasPrefix("prefs: \(domain): \(key): ") && run.error.contains(says), "\(arguments): \(run.error)")
        #expect(run.error.contains("(schema \(sandbox.data)/prefs/schemas/app.plist); nothing changed"), "\(run.error)")
        #expect(run.error.split(separator: "\n").count == 1)
        #expect(bytes(suite) == before, "\(arguments) changed the suite")
        #expect(bytes(registration) == nil, "\(arguments) wrote a registration")
    }

    /// The same paths store what keeps the schema, and `--no-schema` stores what breaks it.
    @Test func valuesThatKeepTheRulesAreStoredAndNoSchemaBypassesThem() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        let document = try sandbox.directory.write("import.json", #"{"timeout": 20, "level": "warn"}"#)
        #expect(try await sandbox.prefs("import", "app", document).status == 0)
        #expect(try await sandbox.prefs("write", "app", ":ports:1", "-int", "443", "timeout", "-int-add", "5").outputText == "25\n")
        #expect(try await sandbox.prefs("write", "app", "opts", "-dict-add", "b", "x").status == 0, "a dictionary's contents are not constrained")
        #expect(try await sandbox.prefs("register", "app", "timeout", "-int", "60").status == 0)
        #expect(try sandbox.suite("app")?.dictionary?["ports"] == [80, 443])
        let dump = try sandbox.directory.write("dump.json", SchemaEndToEndTests.dump(#"{"timeout": {"integer": 500}, "name": {"string": "x"}}"#))
        for arguments in [["load", dump, "--no-schema"], ["write", "app", "timeout", "-int", "500", "--no-schema"],
                          ["rename", "app", "name", "nickname", "--no-schema"], ["register", "app", "extra", "1", "--no-schema"]] {
            let run = try await runProcess(Paths.binary, arguments, environment: sandbox.environment)
            #expect(run.status == 0, "\(arguments): \(run.error)")
        }
        #expect(try sandbox.suite("app")?.dictionary?["timeout"] == 500)
        #expect(try await sandbox.prefs("write", "app", "timeout", "-int", "5", "--no-schema", "--schema", document).status == 64)
        // Removing is never refused: delete and reset take away what breaks the schema.
        #expect(try await sandbox.prefs("delete", "app", "nickname").status == 0)
        #expect(try await sandbox.prefs("reset", "app", "timeout").status == 0)
        #expect(try await sandbox.prefs("read", "app", "timeout", "--origin").outputText == "registered:\(sandbox.data)/prefs/defaults/app.plist\t60\n")
    }

    /// A suite's ByHost suite (`-currentHost`) is checked against the suite's schema, and typed by it.
    @Test func aByHostSuiteIsCheckedAgainstItsSuitesSchema() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        let environment = sandbox.environment.merging(["PREFS_HOST_ID": "host-1"]) { $1 }
        let refused = try await runProcess(Paths.binary, ["-currentHost", "write", "app", "timeout", "500"], environment: environment)
        #expect(refused.status == 65 && refused.error.contains("timeout: expected an integer from 1 to 300, not 500"), "\(refused.error)")
        #expect(try await runProcess(Paths.binary, ["-currentHost", "write", "app", "timeout", "45"], environment: environment).status == 0)
        let read = try await runProcess(Paths.binary, ["read", "app", "timeout", "--origin"], environment: environment)
        #expect(read.outputText == "byhost\t45\n", "\(read.outputText) \(read.error)")
        #expect(try PropertyList.decode(try Fixtures.bytes(sandbox.config + "/ByHost/app.host-1.plist")).value == ["timeout": 45])
    }

    /// `--schema FILE` checks a run against another schema instead of the suite's.
    @Test func aSchemaFileOnTheCommandLineIsUsedInstead() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        let other = try sandbox.directory.write("other.json", #"{"keys": {"timeout": {"type": "integer", "max": 1000}}}"#)
        #expect(try await sandbox.prefs("write", "app", "timeout", "500", "--schema", other).status == 0)
        #expect(try sandbox.suite("app")?.dictionary?["timeout"] == 500, "typed by the other schema, and within its range")
        let run = try await sandbox.prefs("write", "app", "timeout", "2000", "--schema", other)
        #expect(run.status == 65 && run.error.contains("(schema \(other))"), "\(run.error)")
        #expect(try await sandbox.prefs("write", "app", "timeout", "1", "--schema", sandbox.directory.file("none.json")).status == 66)
        #expect(try await sandbox.prefs("check", "app", "--schema", other).status == 0)
        // A file named by its path has no schema of its own, but is checked against one given.
        let plain = sandbox.directory.file("plain.plist")
        #expect(try await sandbox.prefs("write", plain, "timeout", "2000").status == 0)
        #expect(try await sandbox.prefs("write", plain, "timeout", "2001", "--schema", other).status == 65)
        #expect(try await sandbox.prefs("write", plain, "timeout", "999", "--schema", other).status == 0)
        #expect(try PropertyList.decode(try Fixtures.bytes(plain)).value == ["timeout": 999])
        #expect(try await sandbox.prefs("check", "app").status == 65)
    }

    /// Without a type flag, a VALUE takes the schema's type; one that does not spell it is 65.
    @Test func anUntypedValueTakesTheSchemasType() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        #expect(try await sandbox.prefs("write", "app", "timeout", "45", "ratio", "0.25", ":ports:0", "8080", "name", "42").status == 0)
        let suite = try #require(try sandbox.suite("app")?.dictionary)
        #expect(suite["timeout"] == 45 && suite["ratio"] == 0.25 && suite["ports"] == [8080] && suite["name"] == "42")
        #expect(try await sandbox.prefs("read-type", "app", "timeout").outputText == "integer\n")
        // --if-equals is typed as the new value is: here as the schema's integer.
        #expect(try await sandbox.prefs("write", "app", "timeout", "46", "--if-equals", "45").status == 0)
        let bad = try await sandbox.prefs("write", "app", "timeout", "abc")
        #expect(bad.status == 65 && bad.error.hasPrefix(#"prefs: app: timeout: integer (the schema's type) "abc": "#), "\(bad.error)")
        #expect(try await sandbox.prefs("write", "app", "timeout", "46", "--no-schema").status == 0)
        #expect(try sandbox.suite("app")?.dictionary?["timeout"] == "46", "without the schema an untyped VALUE is a string, as in defaults")
    }

    @Test func describePrintsEachKeyWithItsOrigin() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        #expect(try await sandbox.prefs("reset", "app", "timeout", "ratio", "ports", "opts").status == 0)
        let path = sandbox.data + "/prefs/schemas/app.plist"
        let run = try await sandbox.prefs("describe", "app")
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText == """
            schema: \(path)
            undeclared keys: refused

            level
              type: string
              default: info
              choices: debug, info, warn
              value: info
              origin: stored

            name
              type: string
              value: x
              origin: stored

            opts
              type: dictionary
              origin: (none)

            ports
              type: array of integers
              range: 1 to 65535
              origin: (none)

            ratio
              type: float
              range: 0 to 1
              origin: (none)

            timeout
              type: integer
              default: 30
              range: 1 to 300
              description: seconds before giving up
              value: 30
              origin: schema:\(path)

            """)
        #expect(try await sandbox.prefs("describe", "app", "timeout").outputText.hasPrefix("timeout\n  type: integer\n"))
        #expect(try await sandbox.prefs("describe", "app", "level", "--choices").outputText == "debug\ninfo\nwarn\n")
        #expect(try await sandbox.prefs("describe", "app", "level", "--choices", "--null").output == Array("debug\0info\0warn\0".utf8))
        #expect(try await sandbox.prefs("describe", "app", "name", "--choices").outputText == "")
        #expect(try await sandbox.prefs("describe", "app", "nope").status == 1)
        #expect(try await sandbox.prefs("describe", "other").status == 1)
        #expect(try await sandbox.prefs("describe", "other").error == "prefs: other: no schema\n")
        #expect(try await sandbox.prefs("describe", "app", "--choices").status == 64)
        #expect(try await sandbox.prefs("read", "app", "timeout", "--origin").outputText == "schema:\(path)\t30\n")
        #expect(try await sandbox.prefs("read", "app", "timeout", "--stored").status == 1, "a schema's default is never stored")
    }

    @Test func checkReportsStoredValuesThatBreakTheSchema() async throws {
        let sandbox = try await SchemaEndToEndTests.sandbox()
        let path = sandbox.data + "/prefs/schemas/app.plist"
        #expect(try await sandbox.prefs("check", "app").outputText == "app: 0 external values OK\napp: stored values keep the schema \(path)\n")
        // An application writes what the schema refuses.
        #expect(try await sandbox.prefs("write", "app", "timeout", "-int", "0", "stray", "1", "--no-schema").status == 0)
        let run = try await sandbox.prefs("check", "app")
        #expect(run.status == 65)
        #expect(run.outputText == """
            app: 0 external values OK
            app: stray: not a key the schema declares, and it allows no others (schema \(path))
            app: timeout: expected an integer from 1 to 300, not 0 (schema \(path))

            """)
        // A value left as it is does not block a change of another key.
        #expect(try await sandbox.prefs("write", "app", "name", "y").status == 0)
        #expect(try await sandbox.prefs("check").status == 65, "every suite is checked when none is named")
    }

    /// A schema a package ships under `$XDG_DATA_DIRS` is the suite's until the user installs one,
    /// which then wins whole (schemas are not merged).
    @Test func aShippedSchemaIsOverriddenByTheUsers() async throws {
        let sandbox = try ProcessSandbox()
        let shipped = sandbox.packages + "/prefs/schemas/app.json"
        try FileManager.default.createDirectory(atPath: sandbox.packages + "/prefs/schemas", withIntermediateDirectories: true)
        try Data(#"{"keys": {"n": {"type": "integer", "max": 100, "default": 50}, "m": {"type": "string"}}}"#.utf8).write(to: URL(fileURLWithPath: shipped))
        #expect(try await sandbox.prefs("read", "app", "n", "--origin").outputText == "schema:\(shipped)\t50\n")
        #expect(try await sandbox.prefs("write", "app", "n", "200").status == 65)
        #expect(try await sandbox.prefs("write", "app", "n", "70").status == 0)
        #expect(try await sandbox.prefs("describe", "app").outputText.hasPrefix("schema: \(shipped)\n"))
        let user = try sandbox.directory.write("user.json", #"{"keys": {"n": {"type": "integer", "max": 60, "default": 5}}}"#)
        #expect(try await sandbox.prefs("register", "app", "--schema", user, "--exit-code").status == 3)
        let installed = sandbox.data + "/prefs/schemas/app.plist"
        #expect(try await sandbox.prefs("describe", "app").outputText.hasPrefix("schema: \(installed)\n"))
        #expect(try await sandbox.prefs("write", "app", "n", "65").status == 65)
        #expect(try await sandbox.prefs("write", "app", "m", "x").status == 0, "the shipped schema's key m is not declared by the user's, which allows others")
        #expect(try await sandbox.prefs("reset", "app", "n").status == 0)
        #expect(try await sandbox.prefs("read", "app", "n", "--origin").outputText == "schema:\(installed)\t5\n")
        // Installing the same schema again changes nothing.
        #expect(try await sandbox.prefs("register", "app", "--schema", user, "--exit-code").status == 0)
        // A registered default is above the schema's.
        #expect(try await sandbox.prefs("register", "app", "n", "-int", "7").status == 0)
        #expect(try await sandbox.prefs("read", "app", "n", "--origin").outputText == "registered:\(sandbox.data)/prefs/defaults/app.plist\t7\n")
    }
}
