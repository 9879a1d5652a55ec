import Foundation
import Testing
@testable import PrefsCore

/// External storage end to end, with real processes: large values leave the suite small and read
/// back byte for byte, blobs are removed exactly when nothing refers to them any more, a writer killed
/// at any moment never leaves a reference without its blob, and a hand-edited reference is refused
/// without anything outside the store being opened.
@Suite(.runsProcesses) struct ExternalStorageTests {
    /// Every file under the sandbox's external directory (blobs and unfinished ones), relative to it.
    static func blobs(_ sandbox: ProcessSandbox) -> [String] {
        let root = sandbox.data + "/prefs/external"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    static func sha256(_ path: String) async throws -> String {
        let run = try await runProcess("/usr/bin/sha256sum", [path])
        return String(run.outputText.prefix(64))
    }

    /// `count` random bytes, read from the kernel at once (not a byte at a time: that is a getrandom
    /// call each).
    static func random(_ count: Int) throws -> [UInt8] {
        guard let urandom = FileHandle(forReadingAtPath: "/dev/urandom") else { throw TestFailure("cannot open /dev/urandom") }
        defer { try? urandom.close() }
        let bytes = [UInt8](try urandom.read(upToCount: count) ?? Data())
        guard bytes.count == count else { throw TestFailure("/dev/urandom gave \(bytes.count) of \(count) bytes") }
        return bytes
    }

    /// A 5 MB value from a file and a large string: the suite stays small, each reads back byte for
    /// byte, and `check` finds both blobs. (100 MB through a pipe: `aHundredMegabyteValue…`.)
    @Test func fiveMegabyteValuesLeaveTheSuiteSmallAndReadBackIdentically() async throws {
        let sandbox = try ProcessSandbox()
        let five = try sandbox.directory.write("five", try Self.random(5_000_000))
        try #require(await sandbox.prefs("write", "big", "five", "-data", "@" + five).status == 0)
        // A large string from a file, and the plain read of a large value (hex for data).
        let text = try sandbox.directory.write("text", String(repeating: "grüße\n", count: 50_000))
        try #require(await sandbox.prefs("write", "big", "text", "-string-file", text).status == 0)
        let suiteSize = try FileManager.default.attributesOfItem(atPath: sandbox.config + "/big.plist")[.size] as! Int
        #expect(suiteSize < 2048, "the suite holds \(suiteSize) bytes")
        let out = sandbox.directory.file("five.out")
        let read = try await sandbox.shell("prefs read big five --raw > \(out)")
        #expect(read.status == 0, "\(read.error)")
        #expect(try await Self.sha256(out) == Self.sha256(five))
        #expect(try await sandbox.prefs("read-type", "big", "five").outputText == "data\n")
        #expect(Self.blobs(sandbox).count == 2)
        let check = try await sandbox.prefs("check", "big")
        #expect(check.status == 0 && check.outputText == "big: 2 external values OK\n", "\(check.outputText)\(check.error)")
        #expect(try await sandbox.prefs("read-type", "big", "text").outputText == "string\n")
        #expect(try await sandbox.prefs("read", "big", "text").outputText == String(repeating: "grüße\n", count: 50_000) + "\n")
        #expect(try await sandbox.prefs("read", "big", "five").outputText == Self.hexOf(five) + "\n")
    }

    /// 100 MB through standard input, as a pipeline gives it: the suite stays small and the value reads
    /// back byte for byte. Slow (200 MB written and hashed): `Tests/run-slow-tests.sh` runs it.
    @Test(.enabled(if: SlowTests.enabled, "slow: Tests/run-slow-tests.sh runs it"))
    func aHundredMegabyteValueThroughAPipeLeavesTheSuiteSmallAndReadsBackIdentically() async throws {
        let sandbox = try ProcessSandbox()
        let hundred = sandbox.directory.file("hundred")
        try #require(await sandbox.shell("head -c 100000000 /dev/urandom > \(hundred) && prefs write big hundred -data @- < \(hundred)").status == 0)
        let suiteSize = try FileManager.default.attributesOfItem(atPath: sandbox.config + "/big.plist")[.size] as! Int
        #expect(suiteSize < 2048, "the suite holds \(suiteSize) bytes")
        let out = sandbox.directory.file("hundred.out")
        let read = try await sandbox.shell("prefs read big hundred --raw > \(out)")
        #expect(read.status == 0, "\(read.error)")
        #expect(try await Self.sha256(out) == Self.sha256(hundred))
        #expect(try await sandbox.prefs("read-type", "big", "hundred").outputText == "data\n")
        #expect(Self.blobs(sandbox).count == 1)
        let check = try await sandbox.prefs("check", "big")
        #expect(check.status == 0 && check.outputText == "big: 1 external value OK\n", "\(check.outputText)\(check.error)")
    }

    /// The file's bytes in lowercase hex, two digits each (String(format:) a byte at a time took
    /// most of a minute for 5 MB in a debug build).
    static func hexOf(_ path: String) throws -> String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = try Fixtures.bytes(path)
        var hex = [UInt8](repeating: 0, count: bytes.count * 2)
        hex.withUnsafeMutableBufferPointer { hex in
            for (index, byte) in bytes.enumerated() {
                hex[2 * index] = digits[Int(byte >> 4)]
                hex[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Without a history (`PREFS_HISTORY=0`): a version would name the blobs a change drops, and
    /// keep them until it is pruned and `gc` runs (`BackendContractTests+History`).
    @Test func overwriteDeleteResetAndImportLeaveExactlyTheBlobsStillReferenced() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_HISTORY"] = "0"
        let a = try sandbox.directory.write("a", try Self.random(300_000))
        let b = try sandbox.directory.write("b", try Self.random(300_000))
        try #require(await sandbox.prefs("write", "s", "x", "-data", "@" + a, "y", "-data", "@" + b, "small", "-int", "1").status == 0)
        #expect(Self.blobs(sandbox).count == 2)
        // Overwrite with another large value: the old blob goes, the new one is the only one.
        let before = Self.blobs(sandbox)
        try #require(await sandbox.prefs("write", "s", "x", "-data", "@" + b).status == 0)
        #expect(Self.blobs(sandbox).count == 2)
        #expect(Self.blobs(sandbox).filter { $0.hasPrefix("s/x/") } != before.filter { $0.hasPrefix("s/x/") })
        // The same value again is a no-op: the suite and the blob stay as they are.
        let suiteBefore = try Fixtures.bytes(sandbox.config + "/s.plist")
        let again = try await sandbox.prefs("write", "s", "x", "-data", "@" + b, "--exit-code")
        #expect(again.status == 0)
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == suiteBefore)
        #expect(Self.blobs(sandbox).count == 2)
        // Overwrite with a small value: inline, blob gone.
        try #require(await sandbox.prefs("write", "s", "x", "-data", "00").status == 0)
        #expect(Self.blobs(sandbox).map { String($0.prefix(4)) } == ["s/y/"])
        // Rename keeps the blob (the reference records its directory); delete removes it.
        try #require(await sandbox.prefs("rename", "s", "y", "z").status == 0)
        #expect(try await Self.sha256Read(sandbox, "s", "z") == Self.sha256(b))
        try #require(await sandbox.prefs("delete", "s", "z").status == 0)
        #expect(Self.blobs(sandbox).isEmpty)
        // Reset of one key, then of everything.
        try #require(await sandbox.prefs("write", "s", "p", "-data", "@" + a, "q", "-data", "@" + b).status == 0)
        try #require(await sandbox.prefs("reset", "s", "p").status == 0)
        #expect(Self.blobs(sandbox).map { String($0.prefix(4)) } == ["s/q/"])
        try #require(await sandbox.prefs("reset", "s").status == 0)
        #expect(Self.blobs(sandbox).isEmpty)
        // import externalizes large values; import --replace drops the ones not in the document.
        let document = try sandbox.directory.write("doc.plist", PropertyList.encode(.dictionary(["big": .data(try Self.random(200_000)), "n": .integer(1)]), as: .binary))
        try #require(await sandbox.prefs("write", "s", "old", "-data", "@" + a).status == 0)
        try #require(await sandbox.prefs("import", "s", document).status == 0)
        #expect(Self.blobs(sandbox).count == 2)
        try #require(await sandbox.prefs("import", "s", document, "--replace").status == 0)
        #expect(Self.blobs(sandbox).map { String($0.prefix(6)) } == ["s/big/"])
        // export inlines: the document comes back exactly.
        let exported = try await sandbox.prefs("export", "s", "-", "--format", "binary")
        #expect(try PropertyList.decode(exported.output).value == PropertyList.decode(Fixtures.bytes(document)).value)
        // delete SUITE removes its blobs.
        try #require(await sandbox.prefs("delete", "s").status == 0)
        #expect(Self.blobs(sandbox).isEmpty)
        #expect(try await sandbox.prefs("check").status == 0)
    }

    static func sha256Read(_ sandbox: ProcessSandbox, _ suite: String, _ key: String) async throws -> String {
        let out = sandbox.directory.file("read.out")
        try #require(await sandbox.shell("prefs read \(suite) \(key) --raw > \(out)").status == 0)
        return try await sha256(out)
    }

    @Test func changesThatReadAnExternalValueSeeItAndKeepItExternal() async throws {
        let sandbox = try ProcessSandbox()
        var env = sandbox.environment
        env["PREFS_EXTERNAL_THRESHOLD"] = "1K"
        env["PREFS_HISTORY"] = "0"  // the blobs a change drops go at once
        func prefs(_ arguments: [String]) async throws -> ProcessResult { try await runProcess(Paths.binary, arguments, environment: env) }
        func prefs(_ arguments: String...) async throws -> ProcessResult { try await prefs(arguments) }
        let items = (0..<200).map { "item\($0)" }
        try #require(await prefs(["write", "s", "list", "-array"] + items).status == 0)
        #expect(Self.blobs(sandbox).count == 1)
        try #require(await prefs("write", "s", "list", "-array-add", "last").status == 0)
        try #require(await prefs("write", "s", ":list:0", "first").status == 0)
        let read = try await prefs("read", "s", ":list:200", "--json")
        #expect(read.outputText == "\"last\"\n", "\(read.error)")
        #expect(try await prefs("read", "s", ":list:0").outputText == "first\n")
        #expect(try await prefs("read-type", "s", "list").outputText == "array\n")
        #expect(Self.blobs(sandbox).count == 1)
        // --if-equals compares the real value.
        let text = String(repeating: "t", count: 5000)
        try #require(await prefs("write", "s", "text", text).status == 0)
        #expect(try await prefs("write", "s", "text", "new", "--if-equals", text).status == 0)
        #expect(try await prefs("write", "s", "text", "newer", "--if-equals", text).status == 4)
        // --external forces a small value out, --inline keeps a large one in.
        try #require(await prefs("write", "s", "tiny", "hi", "--external").status == 0)
        #expect(Self.blobs(sandbox).contains { $0.hasPrefix("s/tiny/") })
        try #require(await prefs("write", "s", "inline", String(repeating: "i", count: 5000), "--inline").status == 0)
        #expect(!Self.blobs(sandbox).contains { $0.hasPrefix("s/inline/") })
        #expect(try await prefs("write", "s", "n", "-int", "1", "--external").status == 64)
        #expect(try await prefs("write", sandbox.directory.file("f.plist"), "k", "v", "--external").status == 64)
        let bad = try await runProcess(Paths.binary, ["write", "s", "k", "v"], environment: env.merging(["PREFS_EXTERNAL_THRESHOLD": "lots"]) { $1 })
        #expect(bad.status == 64 && bad.error.contains("PREFS_EXTERNAL_THRESHOLD"))
        #expect(try await prefs("check", "s").status == 0)
    }

    /// Cases an independent review found: a key path into a value streamed in the same write, --raw of
    /// an external container, streaming into an OpenStep suite, a suite named by its file's path.
    @Test func streamedValuesContainersOpenStepSuitesAndSuitePathsBehave() async throws {
        let sandbox = try ProcessSandbox()
        var env = sandbox.environment
        env["PREFS_EXTERNAL_THRESHOLD"] = "1K"
        func prefs(_ arguments: String...) async throws -> ProcessResult { try await runProcess(Paths.binary, arguments, environment: env) }
        let random = try sandbox.directory.write("rand", try Self.random(5000))
        let big = String(repeating: "a", count: 3000)
        // The same error as for an inline value; nothing written, no blob left.
        let into = try await prefs("write", "s", "big", "-data", "@" + random, ":big:key", "other")
        #expect(into.status == 65 && into.error.contains("inside a data"), "\(into.error)")
        #expect(Self.blobs(sandbox).isEmpty)
        try #require(await prefs("write", "s", "list", "-array", big, "x").status == 0)
        let raw = try await prefs("read", "s", "list", "--raw")
        #expect(raw.status == 65 && raw.output.isEmpty, "\(raw.error)")
        // An OpenStep suite cannot hold a reference: the streamed value goes inline.
        try "{ a = b; }".write(toFile: sandbox.config + "/o.plist", atomically: true, encoding: .utf8)
        #expect(try await prefs("write", "o", "k", "-data", "@" + random).status == 0)
        #expect(try await prefs("read", "o", "k", "--raw").output == Fixtures.bytes(random))
        #expect(!Self.blobs(sandbox).contains { $0.hasPrefix("o/") })
        // A suite named by its file's path is that suite: values read in, blobs cleaned up.
        let path = sandbox.config + "/s.plist"
        try #require(await prefs("write", "s", "big", big).status == 0)
        #expect(try await prefs("read", path, "big").outputText == big + "\n")
        #expect(try await prefs("delete", path, "big").status == 0)
        try #require(await prefs("write", path, "other", big).status == 0)
        try #require(await prefs("write", path, "other", "small").status == 0)
        #expect(Self.blobs(sandbox).map { String($0.prefix(7)) } == ["s/list/"])
        #expect(try await prefs("check").status == 0)
    }

    @Test func valuesShapedLikeReferencesAreRefused() async throws {
        let sandbox = try ProcessSandbox()
        try #require(await sandbox.prefs("write", "s", "keep", "1").status == 0)
        let suite = try Fixtures.bytes(sandbox.config + "/s.plist")
        let forged = "{ \"$prefs.external\" = 1; type = data; size = 0; key = x; uuid = \"00000000-0000-4000-8000-000000000000\"; sha256 = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"; }"
        #expect(try await sandbox.prefs("write", "s", "k", forged).status == 65)
        #expect(try await sandbox.prefs("write", "s", "k", "-array", "-json", "{\"$prefs.external\": 2}").status == 65)
        let document = try sandbox.directory.write("doc.json", "{\"k\": {\"nested\": {\"$prefs.external\": 1}}}")
        #expect(try await sandbox.prefs("import", "s", document).status == 65)
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == suite)
        #expect(Self.blobs(sandbox).isEmpty)
        // A copy of a real reference under a second key (its blob would dangle once either went).
        let value = try sandbox.directory.write("v", try Self.random(200_000))
        try #require(await sandbox.prefs("write", "s", "big", "-data", "@" + value).status == 0)
        guard case .dictionary(var stored)? = try sandbox.suite("s") else { Issue.record("no suite"); return }
        stored["copy"] = stored["big"]
        let copied = try sandbox.directory.write("copied.plist", PropertyList.encode(.dictionary(stored), as: .xml))
        let withBlob = try Fixtures.bytes(sandbox.config + "/s.plist")
        #expect(try await sandbox.prefs("import", "s", copied, "--replace").status == 65)
        #expect(try Fixtures.bytes(sandbox.config + "/s.plist") == withBlob)
        #expect(try await sandbox.prefs("check", "s").status == 0)
    }

    /// A new blob's reference records the tree digest (SHA-256 of its 1 MiB pieces'
    /// SHA-256 digests), computed here by Python on the source; a reference written before it, with
    /// the SHA-256 of the whole value (`sha256sum`), still reads back and is still checked.
    @Test func referencesRecordTheTreeDigestAndOlderOnesStillRead() async throws {
        let sandbox = try ProcessSandbox()
        for (key, size) in [("small", 300_000), ("large", 9 * 1_048_576 + 5)] {
            let source = try sandbox.directory.write(key, try Self.random(size))
            try #require(await sandbox.prefs("write", "s", key, "-data", "@" + source).status == 0)
            guard case .dictionary(var suite)? = try sandbox.suite("s"), case .dictionary(var reference)? = suite[key] else {
                Issue.record("no reference"); return
            }
            #expect(reference["sha256-tree"] == .string(try await Fixtures.sha256TreeByPython([source])[0]), "\(key)")
            #expect(reference["sha256"] == nil)
            // As an older prefs wrote it.
            reference["sha256-tree"] = nil
            reference["sha256"] = .string(try await Self.sha256(source))
            suite[key] = .dictionary(reference)
            try Data(PropertyList.encode(.dictionary(suite), as: .xml)).write(to: URL(fileURLWithPath: sandbox.config + "/s.plist"))
            #expect(try await Self.sha256Read(sandbox, "s", key) == Self.sha256(source), "\(key)")
            #expect(try await sandbox.prefs("check", "s").status == 0)
            // Its dump loaded back is the same value, by the older digest: in a dry run (the value
            // only hashed) as when loaded.
            let before = Self.blobs(sandbox)
            let dump = try await sandbox.prefs("dump")
            try #require(dump.status == 0)
            for load in [try await sandbox.prefs("load", "--dry-run", "-", input: dump.output), try await sandbox.prefs("load", "-", input: dump.output)] {
                #expect(load.status == 0 && load.outputText.hasPrefix("unchanged\ts\n"), "\(key): \(load.outputText)")
            }
            #expect(Self.blobs(sandbox) == before, "\(key)")
            // Writing the same value again keeps the blob (the same value, by the older digest).
            try #require(await sandbox.prefs("write", "s", key, "-data", "@" + source).status == 0)
            #expect(Self.blobs(sandbox) == before, "\(key)")
            // And damage in place is still found by it.
            let blob = sandbox.data + "/prefs/external/" + (try #require(before.first { $0.hasPrefix("s/" + key + "/") }))
            try Fixtures.overwrite(blob, at: size / 2, with: [try Fixtures.bytes(blob)[size / 2] ^ 1])
            let read = try await sandbox.prefs("read", "s", key, "--raw")
            #expect(read.status == 65 && read.error.contains("its sha256 digest is not the one its reference records"), "\(key): \(read.error)")
            try FileManager.default.removeItem(atPath: blob)
            try #require(await sandbox.prefs("delete", "s", key).status == 0)
        }
    }

    /// A sandbox with two values of about 3000 bytes in files `a` and `b` of its directory, an
    /// external threshold of 100 bytes, and `a` written as `s k`: for shell scripts that run there
    /// and alternate the two.
    static func sandboxAlternating() async throws -> ProcessSandbox {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_EXTERNAL_THRESHOLD"] = "100"
        let a = try sandbox.directory.write("a", random(3000))
        _ = try sandbox.directory.write("b", random(3001))
        try #require(await sandbox.prefs("write", "s", "k", "-data", "@" + a).status == 0)
        return sandbox
    }

    /// Reads racing a writer that keeps replacing an external value. The writer removes each old
    /// blob once the suite naming the new one is committed, so a read that loaded the suite just
    /// before finds its blob gone; it reads the suite again and answers with the new value. Every
    /// `read --raw` (its bytes one of the two values), `read-type` and `export` succeeds.
    @Test func readsRacingAWriterThatReplacesAnExternalValueNeverFail() async throws {
        let sandbox = try await Self.sandboxAlternating()
        let run = try await sandbox.shell("""
            cd "\(sandbox.directory.path)"
            (for i in $(seq 200); do prefs write s k -data @b && prefs write s k -data @a || exit 9; done) &
            writer=$!
            reads=0 failures=0
            while kill -0 $writer 2>/dev/null; do
              prefs read s k --raw >out 2>>errors && { cmp -s out a || cmp -s out b; } || failures=$((failures + 1))
              prefs read-type s k >/dev/null 2>>errors || failures=$((failures + 1))
              prefs export s - >/dev/null 2>>errors || failures=$((failures + 1))
              reads=$((reads + 3))
            done
            wait $writer || echo "the writer failed"
            echo "$reads reads, $failures failed"
            head -3 errors
            """, timeout: 600)
        #expect(run.status == 0 && run.outputText.contains(" reads, 0 failed"), "\(run.outputText)")
        let reads = Int(run.outputText.prefix { $0 != " " }) ?? 0
        #expect(reads >= 150, "\(run.outputText)")
    }

    /// Writing the value already stored changes nothing wherever it is kept: a small value kept
    /// external (`--external`) rewritten plainly or with `--inline`, and a small inline one rewritten
    /// with `--external`, all exit 0 under `--exit-code`, as their dry runs say, and the file keeps
    /// its inode. A different value still follows the size rule.
    @Test func anEqualValueStaysWhereItIsWhateverThePlacementFlag() async throws {
        let sandbox = try ProcessSandbox()
        sandbox.extraEnvironment["PREFS_HISTORY"] = "0"  // a version would keep the blob the last write drops
        try #require(await sandbox.prefs("write", "s", "small", "--external", "-string", "x").status == 0)
        try #require(await sandbox.prefs("write", "s", "plain", "-string", "y").status == 0)
        let path = sandbox.config + "/s.plist"
        let inode = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
        for arguments in [["small", "-string", "x"], ["small", "--inline", "-string", "x"], ["plain", "--external", "-string", "y"]] {
            let dry = try await runProcess(Paths.binary, ["write", "s"] + arguments + ["--exit-code", "--dry-run"], environment: sandbox.environment)
            let real = try await runProcess(Paths.binary, ["write", "s"] + arguments + ["--exit-code"], environment: sandbox.environment)
            #expect(dry.status == 0 && real.status == 0, "\(arguments): \(dry.status) \(real.status) \(real.error)")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
        #expect(Self.blobs(sandbox).count == 1)
        #expect(try await sandbox.prefs("write", "s", "small", "-string", "z", "--exit-code").status == 3)
        #expect(Self.blobs(sandbox).isEmpty)
    }

    /// `check` beside writers at work finds nothing wrong: not the unfinished blob of a write still
    /// streaming from a FIFO, nor the blob a writer has written but not committed yet, nor the old
    /// blob a committed change is about to remove. (What killed writers leave is still found:
    /// `killedLargeWritesNeverLeaveADanglingReference`.)
    @Test func checkBesideWritersAtWorkFindsNothingWrong() async throws {
        let sandbox = try await Self.sandboxAlternating()
        let run = try await sandbox.shell("""
            cd "\(sandbox.directory.path)"
            mkfifo fifo
            prefs write s streaming -data @fifo & streaming=$!
            exec 6>fifo; head -c 3000 a >&6
            # Until the writer has its unfinished blob (at most about 10 s).
            for i in $(seq 1000); do [ -n "$(ls "$XDG_DATA_HOME/prefs/external/s/streaming" 2>/dev/null)" ] && break; sleep 0.01; done
            prefs check s >/dev/null || echo "check failed beside a streaming writer"
            exec 6>&-; wait $streaming || echo "the streaming write failed"
            (for i in $(seq 150); do prefs write s k -data @b && prefs write s k -data @a || exit 9; done) &
            writer=$!
            checks=0 failures=0
            while kill -0 $writer 2>/dev/null; do
              prefs check s >out 2>&1 || { failures=$((failures + 1)); echo "exit $?" >>report; cat out >>report; }
              checks=$((checks + 1))
            done
            wait $writer || echo "the writer failed"
            echo "$checks checks, $failures failed"
            if [ -f report ]; then head -4 report; fi
            """, timeout: 600)
        #expect(run.status == 0 && run.outputText.hasSuffix("checks, 0 failed\n"), "\(run.outputText)")
        let checks = Int(run.outputText.prefix { $0 != " " }) ?? 0
        #expect(checks >= 50, "\(run.outputText)")
    }

    /// A reference edited by hand: a path in its uuid or directory, a wrong hash or size, a missing
    /// blob. Reads fail with 65 and a message naming the key; the suite is not changed; under strace,
    /// no file outside the store (but the suite's own and the program's) is opened.
    @Test func handEditedReferencesAreRefusedWithoutOpeningAnythingOutsideTheStore() async throws {
        let sandbox = try ProcessSandbox()
        let value = try sandbox.directory.write("v", try Self.random(200_000))
        try #require(await sandbox.prefs("write", "s", "k", "-data", "@" + value).status == 0)
        guard case .dictionary(var suite)? = try sandbox.suite("s"), case .dictionary(let reference)? = suite["k"] else {
            Issue.record("no reference"); return
        }
        let blob = Self.blobs(sandbox)[0]
        var edits: [(String, PrefValue?, String)] = [
            ("uuid", .string("../../../../../../etc/passwd"), "malformed reference"),
            ("key", .string("../../../../etc"), "malformed reference"),
            ("sha256-tree", .string(String(repeating: "0", count: 64)), "is damaged"),
            ("sha256", .string(String(repeating: "0", count: 64)), "malformed reference"),  // two digests
            ("size", .integer(5), "has 200000 bytes"),
            ("type", .string("date"), "malformed reference"),
            ("sha256-tree", nil, "malformed reference"),
        ]
        edits.append(("uuid", .string("00000000-0000-4000-8000-000000000000"), "is missing"))
        for (field, replacement, message) in edits {
            var edited = reference
            edited[field] = replacement
            suite["k"] = .dictionary(edited)
            let path = sandbox.config + "/s.plist"
            try Data(PropertyList.encode(.dictionary(suite), as: .xml)).write(to: URL(fileURLWithPath: path))
            let bytes = try Fixtures.bytes(path)
            for arguments in [["read", "s", "k"], ["read", "s", "k", "--raw"], ["read-type", "s", "k"], ["export", "s", "-"], ["write", "s", "k", "-array-add", "x"]] {
                let trace = sandbox.directory.file("trace")
                let run = try await runProcess("/usr/bin/strace", ["-f", "-qq", "-e", "trace=open,openat", "-o", trace, Paths.binary] + arguments, environment: sandbox.environment)
                #expect(run.status == 65, "\(field) \(arguments): \(run.status) \(run.error)")
                #expect(run.error.contains("s: k: external value: ") && run.error.contains(message), "\(field) \(arguments): \(run.error)")
                let opened = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
                    guard let start = line.firstIndex(of: "\""), let end = line[line.index(after: start)...].firstIndex(of: "\"") else { return nil }
                    return String(line[line.index(after: start)..<end])
                }
                // Relative names are opened under the store's own directory descriptors; the rest
                // must be the sandbox's files or the program's shared libraries.
                let outside = opened.filter { $0.hasPrefix("/") && !$0.hasPrefix(sandbox.directory.path + "/") && !$0.contains(".so") && !$0.hasPrefix("/proc/self/") && !$0.hasPrefix("/sys/devices/system/cpu/") }
                #expect(outside.isEmpty, "\(field) \(arguments) opened \(outside.prefix(3))")
                #expect(!opened.contains { $0.contains("passwd") })
                #expect(try Fixtures.bytes(path) == bytes, "\(field) \(arguments) changed the suite")
            }
            #expect(try await sandbox.prefs("check", "s").status == 65)
        }
        #expect(Self.blobs(sandbox) == [blob])
    }

    /// Writers of large values killed with SIGKILL at random moments, over 100 times: every reference
    /// the suite holds has its blob, every value is one a writer wrote whole, and `gc` then leaves
    /// nothing but referenced blobs.
    @Test func killedLargeWritesNeverLeaveADanglingReference() async throws {
        let sandbox = try ProcessSandbox()
        // No history: at the end exactly the suite's blob is left (a version names the ones before).
        sandbox.extraEnvironment["PREFS_HISTORY"] = "0"
        let sizes = [300_000, 1_000_000, 3_000_000]
        var sources: [String] = []
        var hashes: Set<String> = []
        for (i, size) in sizes.enumerated() {
            let path = try sandbox.directory.write("src\(i)", try Self.random(size))
            sources.append(path)
            await hashes.insert(try Self.sha256(path))
        }
        let writer = """
            i=0
            while [ "$SECONDS" -lt 60 ]; do
              prefs write s payload -data @\(sandbox.directory.path)/src$((i % 3)) counter -int $i || exit 1
              i=$((i + 1))
            done
            """
        var orphansSeen = 0
        for round in 1...100 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", writer]
            process.environment = sandbox.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try #require(getpgid(process.processIdentifier) == process.processIdentifier)
            try await Task.sleep(for: .microseconds(Int.random(in: 5_000...120_000)))
            kill(-process.processIdentifier, SIGKILL)
            await process.exited()
            try await Task.sleep(for: .milliseconds(2))
            guard FileManager.default.fileExists(atPath: sandbox.config + "/s.plist") else { continue }
            let check = try await sandbox.prefs("check", "s")
            let lines = check.outputText.split(separator: "\n")
            #expect(lines.allSatisfy { $0.contains("orphan blob") || $0.contains("unfinished blob") || $0.hasSuffix("OK") }, "round \(round): \(check.outputText)")
            orphansSeen += lines.filter { !$0.hasSuffix("OK") }.count
            #expect(await hashes.contains(try Self.sha256Read(sandbox, "s", "payload")), "round \(round)")
        }
        let gc = try await sandbox.prefs("gc", "--grace", "0")
        #expect(gc.status == 0, "\(gc.error)")
        let check = try await sandbox.prefs("check")
        #expect(check.status == 0 && check.outputText == "s: 1 external value OK\n", "\(check.outputText)")
        #expect(Self.blobs(sandbox).count == 1)
        // Proof that kills landed inside writes.
        #expect(orphansSeen > 0)
    }

    @Test func gcKeepsFreshOrphansUnlessToldAndReportsWhatItRemoves() async throws {
        let sandbox = try ProcessSandbox()
        let value = try sandbox.directory.write("v", try Self.random(200_000))
        try #require(await sandbox.prefs("write", "s", "k", "-data", "@" + value).status == 0)
        // An orphan, as a killed writer leaves it.
        let orphanDirectory = sandbox.data + "/prefs/external/s/k"
        let orphan = orphanDirectory + "/11111111-1111-4111-8111-111111111111"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: orphan))
        let check = try await sandbox.prefs("check")
        #expect(check.status == 65 && check.outputText.contains("s: orphan blob k/11111111-1111-4111-8111-111111111111 (3 bytes)"), "\(check.outputText)")
        #expect(try await sandbox.prefs("gc").outputText == "")
        #expect(FileManager.default.fileExists(atPath: orphan))
        let dry = try await sandbox.prefs("gc", "--grace", "0", "--dry-run")
        #expect(dry.outputText == "would remove s: k/11111111-1111-4111-8111-111111111111 (3 bytes)\n")
        #expect(FileManager.default.fileExists(atPath: orphan))
        let gc = try await sandbox.prefs("gc", "--grace", "0", "--exit-code")
        #expect(gc.status == 3 && gc.outputText == "removed s: k/11111111-1111-4111-8111-111111111111 (3 bytes)\n")
        #expect(try await sandbox.prefs("check").status == 0)
        #expect(Self.blobs(sandbox).count == 1)
        // The blobs of a suite whose file and history are gone are all orphans (while its history
        // is there, its version names them).
        try FileManager.default.removeItem(atPath: sandbox.config + "/s.plist")
        #expect(try await sandbox.prefs("check").status == 0)
        try FileManager.default.removeItem(atPath: sandbox.directory.path + "/.local/state/prefs/history/s")
        #expect(try await sandbox.prefs("check").status == 65)
        #expect(try await sandbox.prefs("gc", "--grace", "0").status == 0)
        #expect(Self.blobs(sandbox).isEmpty)
    }

    @Test func concurrentWritersOfDifferentLargeKeysLoseNothing() async throws {
        let sandbox = try ProcessSandbox()
        let script = """
            for w in 1 2 3 4; do
              ( for i in $(seq 1 10); do
                  head -c 150000 /dev/zero | tr '\\0' "$w" | prefs write s "k$w-$i" -string-file - || echo "writer $w failed at $i" >&2
                done ) &
            done
            wait
            """
        let run = try await sandbox.shell(script)
        #expect(run.error.isEmpty, "\(run.error.prefix(500))")
        for w in 1...4 {
            for i in 1...10 {
                #expect(try await sandbox.prefs("read", "s", "k\(w)-\(i)").outputText == String(repeating: "\(w)", count: 150_000) + "\n", "k\(w)-\(i)")
            }
        }
        #expect(Self.blobs(sandbox).count == 40)
        #expect(try await sandbox.prefs("check").outputText == "s: 40 external values OK\n")
    }
}
