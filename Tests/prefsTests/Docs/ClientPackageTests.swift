import Foundation
import Testing
import PrefsTestSupport

/// PrefsCore as another package uses it: a copy of this checkout (`prefs`, committed and tagged 1.0.0
/// in a git repository of its own) and, beside it, a client package in Swift 6 language mode that
/// depends on it with the README's own lines (`.package(path: "../prefs")` and `package: "prefs"`).
/// The client uses both library products, PrefsCore and PrefsFoundation; it is built from scratch
/// (minutes: PrefsCore is compiled again, once for both tests: the client has a program for each),
/// and must build with no warning and run. A dependency by version (`.package(url:from:)`, for when
/// a version is tagged) is checked to pass SwiftPM's checks too: it refuses a library target that
/// carries unsafe flags. Slow (the build takes minutes): `Tests/run-slow-tests.sh` runs it.
@Suite(.serialized, .runsProcesses, .enabled(if: SlowTests.enabled, "slow: Tests/run-slow-tests.sh runs it")) struct ClientPackageTests {
    /// The client package, built: `Client` (the smallest program) and `ReadmeClient` (the README's
    /// Swift section, when it has one; its own test fails otherwise).
    static let client = Task { () async throws -> (package: ClientPackage, printed: String) in
        var programs = ["Client": """
            import Foundation
            import PrefsCore
            import PrefsFoundation

            let value: PrefValue = ["retries": 3, "site": PrefValue(URL(string: "https://example.com")!)]
            let error: any Error = PrefsError.keyNotFound(domain: "com.example.app", key: "retries")
            print(value.typeName, (error as? PrefsError)?.exitStatus.rawValue ?? 0, error.localizedDescription)

            // The untyped store under a suite: settings in code, reads and changes without dryRun or scope.
            let suite = Prefs.Suite("com.example.client", options: StoreOptions(externalThreshold: 1 << 20, lockTimeout: 2))
            try suite.set(Prefs.Key<Int>("n", default: 0), 7)
            let found = try suite.store.value(at: PrefKeyPath(["n"]), in: .suite("com.example.client"))
            print(found.value == 7, found.origin, try suite.store.delete(PrefKeyPath(["n"]), in: .suite("com.example.client")).changed)
            """]
        programs["ReadmeClient"] = try? readmeSwift().code
        let client = try await ClientPackage(programs: programs, dependency: try readmeDependency())
        return (client, try await client.build())
    }

    @Test func aClientDependingOnACloneBuildsWithoutWarningsAndRuns() async throws {
        let (client, printed) = try await Self.client.value
        #expect(!printed.contains("warning:"), "\(printed)")
        let run = try await client.run("Client")
        #expect(run.outputText == "dictionary 1 com.example.app: no key retries\ntrue stored true\n", "\(run.error)")
    }

    /// The README's dependency lines hold for a clone: `package:` is the name SwiftPM gives the
    /// clone (its directory's), and the client built above used them.
    @Test func theReadmesDependencyLinesNameAClone() async throws {
        let dependency = try ClientPackageTests.readmeDependency()
        #expect(dependency.line == #".package(path: "../prefs")"#)
        #expect(dependency.package == "prefs")
        _ = try await Self.client.value
    }

    /// Once a version is tagged, a dependency by version (`from:`) resolves and passes SwiftPM's
    /// checks (no library target with unsafe flags): a package depending on the tagged copy so
    /// plans a build (of a program that needs nothing, so nothing of prefs is compiled again).
    @Test func aDependencyByVersionPassesSwiftPMsChecks() async throws {
        let (client, _) = try await Self.client.value
        let planned = try await client.plan(dependency: #".package(url: "file://\#(client.repository)", from: "1.0.0")"#)
        let printed = planned.outputText + planned.error
        #expect(planned.status == 0 && !printed.contains("warning:"), "\(printed)")
    }

    /// The README's section "Using PrefsCore from Swift": its `swift` blocks, in order, are the
    /// client's `main.swift`, run with the built `prefs` on its `PATH`, and what it prints is what
    /// their `// prints:` comments say. A block preceded by `<!-- not compiled: REASON -->` is left
    /// out (which ones are is checked too).
    @Test func theReadmesSwiftSectionBuildsAndPrintsWhatItSays() async throws {
        let (code, notCompiled) = try ClientPackageTests.readmeSwift()
        #expect(notCompiled == ["a client's Package.swift (ClientPackageTests builds one with these lines)"])
        let expected = code.split(separator: "\n").compactMap { line in
            line.range(of: "// prints: ").map { String(line[$0.upperBound...]) }
        }
        #expect(expected.count >= 8)
        let (client, printed) = try await Self.client.value
        #expect(!printed.contains("warning:"), "\(printed)")
        let home = client.directory.path
        for directory in ["config", "data"] { try FileManager.default.createDirectory(atPath: home + "/" + directory, withIntermediateDirectories: true) }
        let run = try await client.run("ReadmeClient", environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "XDG_DATA_DIRS": home + "/none",
                                                                     "XDG_CONFIG_DIRS": home + "/none", "PATH": Paths.products + ":/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) == expected, "\(run.error)")
    }

    /// The README's dependency on prefs (`.package(…)` in its Package.swift lines) and the package
    /// name its products are given with.
    static func readmeDependency() throws -> (line: String, package: String) {
        let readme = try Fixtures.text("README.md")
        guard let start = readme.range(of: "dependencies: [.package("), let end = readme[start.upperBound...].range(of: ")],\n") else {
            throw TestFailure("README has no dependencies: [.package(…)] line")
        }
        let packages = Set(readme.components(separatedBy: ".product(name: \"").dropFirst().compactMap { product in
            product.range(of: "package: \"").map { String(product[$0.upperBound...].prefix { $0 != "\"" }) }
        })
        guard packages.count == 1 else { throw TestFailure("README's products name packages \(packages)") }
        return (".package(" + readme[start.upperBound..<end.lowerBound] + ")", packages.first!)
    }

    /// The `swift` blocks of the README's "Using PrefsCore from Swift", joined, and the reasons of
    /// those left out.
    static func readmeSwift() throws -> (code: String, notCompiled: [String]) {
        let readme = try Fixtures.text("README.md")
        guard let start = readme.range(of: "\n## Using PrefsCore from Swift\n") else { throw TestFailure("README has no Swift section") }
        let section = readme[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var code: [String] = [], notCompiled: [String] = []
        var inBlock = false, skipping = false, pending: String?
        for line in section[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            if inBlock {
                if line == "```" { inBlock = false } else if !skipping { code.append(String(line)) }
            } else if line.hasPrefix("<!-- not compiled: ") {
                pending = String(line.dropFirst(19).dropLast(4))
            } else if line == "```swift" {
                (inBlock, skipping) = (true, pending != nil)
                if let pending { notCompiled.append(pending) }
                pending = nil
            } else if !line.isEmpty {
                pending = nil
            }
        }
        return (code.joined(separator: "\n") + "\n", notCompiled)
    }
}

/// A client package in a temporary directory, beside a copy of this checkout (`prefs`, committed and
/// tagged 1.0.0), depending on it as `dependency` says.
struct ClientPackage: Sendable {
    let directory: TemporaryDirectory
    let swift: String
    var repository: String { directory.file("prefs") }

    /// `programs`: the client's executable targets, by name, and the `main.swift` of each, with
    /// `dependency.line` in its `dependencies` and each product named with `dependency.package`.
    init(programs: [String: String], dependency: (line: String, package: String)) async throws {
        directory = try TemporaryDirectory()
        swift = try requireProgram("swift", install: "the Swift toolchain")
        try await ClientPackage.tagCopy(of: Fixtures.packageRoot, at: directory.file("prefs"))
        try ClientPackage.write("client", in: directory, dependency: dependency, programs: programs)
    }

    /// The package `name` in `directory`: a program for each of `programs`, depending on both products.
    static func write(_ name: String, in directory: TemporaryDirectory, dependency: (line: String, package: String), programs: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: true)
        let products = ["PrefsCore", "PrefsFoundation"].map { #".product(name: "\#($0)", package: "\#(dependency.package)")"# }
        let targets = programs.keys.sorted().map { #".executableTarget(name: "\#($0)", dependencies: [\#(products.joined(separator: ", "))])"# }
        try directory.write("\(name)/Package.swift", """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "Client",
                dependencies: [\(dependency.line)],
                targets: [\(targets.joined(separator: ", ")), .executableTarget(name: "Probe")]
            )
            """)
        for (program, main) in programs.merging(["Probe": ""], uniquingKeysWith: { $1 }) {
            try FileManager.default.createDirectory(atPath: directory.file("\(name)/Sources/\(program)"), withIntermediateDirectories: true)
            try directory.write("\(name)/Sources/\(program)/main.swift", main)
        }
    }

    /// The files of the checkout as git sees them (tracked, and new ones not ignored, as they are
    /// now), committed to a new repository at `destination` and tagged 1.0.0.
    static func tagCopy(of root: String, at destination: String) async throws {
        let script = """
            set -eu
            mkdir -p '\(destination)'
            git -C '\(root)' ls-files -z --cached --others --exclude-standard | (cd '\(root)' && xargs -0 tar -cf - --ignore-failed-read) | tar -xf - -C '\(destination)'
            cd '\(destination)'
            git init -q
            git add -A
            git -c user.name=test -c user.email=test@example.com commit -q -m 1.0.0
            git tag 1.0.0
            """
        let run = try await runProcess("/bin/sh", ["-c", script], environment: ClientPackage.environment(home: destination + "/.."))
        guard run.status == 0 else { throw TestFailure("tagging a copy of the checkout failed: \(run.error)") }
    }

    static func environment(home: String) -> [String: String] {
        var environment = ["HOME": home, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        return environment
    }

    /// Builds the client's programs; gives everything SwiftPM printed (to be checked for warnings).
    func build() async throws -> String {
        let build = try await swiftBuild("client", scratch: "build")
        let printed = build.outputText + build.error
        guard build.status == 0 else { throw TestFailure("the client did not build:\n\(printed.suffix(4000))") }
        return printed
    }

    /// A client package like this one with `dependency` instead, resolved and checked by building
    /// its `Probe` program only (which needs nothing of prefs).
    func plan(dependency line: String) async throws -> ProcessResult {
        try ClientPackage.write("planned", in: directory, dependency: (line, "prefs"), programs: ["App": "import PrefsCore\n"])
        return try await swiftBuild("planned", scratch: "planned-build", arguments: ["--target", "Probe"])
    }

    private func swiftBuild(_ package: String, scratch: String, arguments: [String] = []) async throws -> ProcessResult {
        try await runProcess(swift, ["build", "--package-path", directory.file(package), "--scratch-path", directory.file(scratch),
                                     "--cache-path", directory.file("cache"), "--config-path", directory.file("config"),
                                     "--security-path", directory.file("security")] + arguments,
                             environment: ClientPackage.environment(home: directory.path), timeout: 1800)
    }

    /// Runs one of the built programs.
    func run(_ program: String, environment extra: [String: String] = [:]) async throws -> ProcessResult {
        let environment = ClientPackage.environment(home: directory.path).merging(extra) { $1 }
        return try await runProcess(directory.file("build") + "/debug/" + program, [], environment: environment)
    }
}
