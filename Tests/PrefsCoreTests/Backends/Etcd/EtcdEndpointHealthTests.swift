import Foundation
import Testing
@testable import PrefsCore

/// What the client remembers of its endpoints (`EtcdEndpointHealth`), the file it shares it in
/// (`EtcdHealthFile`), and the race that makes a stopped member cost a request `hedgeDelay`
/// rather than its share of the timeout (`EtcdClient.exchange`).
@Suite(.blocking) struct EtcdEndpointHealthTests {
    let a = EtcdEndpoint(host: "10.0.0.1", port: 2379), b = EtcdEndpoint(host: "10.0.0.2", port: 2379)
    let c = EtcdEndpoint(host: "fd00::3", port: 2379)
    var endpoints: [EtcdEndpoint] { [a, b, c] }

    @Test func theOneThatAnsweredComesFirstAndFailedOnesLastNeverLeftOut() {
        let now = EtcdEndpointHealth.now()
        #expect(EtcdEndpointHealth().order(endpoints) == [a, b, c])
        #expect(EtcdEndpointHealth(answered: b).order(endpoints) == [b, c, a])
        let failed = EtcdEndpointHealth.Failure(time: now, kind: "timeout")
        #expect(EtcdEndpointHealth(failed: [a: failed]).order(endpoints) == [b, c, a])
        #expect(EtcdEndpointHealth(answered: c, failed: [a: failed]).order(endpoints) == [c, b, a])
        #expect(EtcdEndpointHealth(failed: [a: failed, b: failed, c: failed]).order(endpoints) == [a, b, c])
        // An endpoint that answered but is not in the list (another URL's) changes nothing.
        #expect(EtcdEndpointHealth(answered: EtcdEndpoint(host: "x", port: 1)).order(endpoints) == [a, b, c])
    }

    @Test func failuresAreForgottenAfterThirtySecondsAndOnesFromTheFutureAreIgnored() {
        let now = EtcdEndpointHealth.now()
        func kept(_ age: Double) -> Bool {
            EtcdEndpointHealth(failed: [a: .init(time: now - age, kind: "refused")]).current(at: now).failed[a] != nil
        }
        #expect(kept(0) && kept(29.9) && kept(30))
        #expect(!kept(30.1) && !kept(3600))
        #expect(kept(-0.5), "a clock a little behind another process's")
        #expect(!kept(-5), "a time ahead of the clock: the clock was set back")
    }

    @Test func theTextRoundTrips() throws {
        let health = EtcdEndpointHealth(answered: b, failed: [a: .init(time: 1_764_288_000.25, kind: "timeout"),
                                                                c: .init(time: 1_764_288_001, kind: "refused")])
        #expect(health.text == "prefs etcd endpoints 1\nanswered 10.0.0.2:2379\nfailed 10.0.0.1:2379 1764288000.25 timeout\n"
            + "failed [fd00::3]:2379 1764288001.0 refused\n")
        #expect(EtcdEndpointHealth(text: Array(health.text.utf8), endpoints: endpoints) == health)
        #expect(EtcdEndpointHealth(text: Array("prefs etcd endpoints 1\n".utf8), endpoints: endpoints) == EtcdEndpointHealth())
    }

    /// Anything but what prefs writes is no health at all, not part of one.
    @Test(arguments: [
        "", "prefs etcd endpoints 1", "prefs etcd endpoints 2\n", "PREFS etcd endpoints 1\n",
        "prefs etcd endpoints 1\nanswered 10.0.0.9:2379\n", "prefs etcd endpoints 1\nanswered 10.0.0.1:2379\nanswered 10.0.0.2:2379\n",
        "prefs etcd endpoints 1\nanswered  10.0.0.1:2379\n", "prefs etcd endpoints 1\nanswered 10.0.0.1:2379\n\n",
        "prefs etcd endpoints 1\nfailed 10.0.0.1:2379 12 timeout\nfailed 10.0.0.1:2379 13 timeout\n",
        "prefs etcd endpoints 1\nfailed 10.0.0.1:2379 nan timeout\n", "prefs etcd endpoints 1\nfailed 10.0.0.1:2379 1e400 timeout\n",
        "prefs etcd endpoints 1\nfailed 10.0.0.1:2379 12 asleep\n", "prefs etcd endpoints 1\nfailed 10.0.0.1:2379 12\n",
        "prefs etcd endpoints 1\nhealthy 10.0.0.1:2379\n", "prefs etcd endpoints 1\r\nanswered 10.0.0.1:2379\r\n",
    ])
    func anythingElseIsIgnoredWhole(text: String) {
        #expect(EtcdEndpointHealth(text: Array(text.utf8), endpoints: endpoints) == nil)
    }

    @Test func noTextOverTheLimitOrNotUTF8() {
        let long = "prefs etcd endpoints 1\n" + String(repeating: "answered 10.0.0.1:2379\n", count: 400)
        #expect(EtcdEndpointHealth(text: Array(long.utf8), endpoints: endpoints) == nil)
        #expect(EtcdEndpointHealth(text: Array("prefs etcd endpoints 1\n".utf8) + [0xFF, 0x0A], endpoints: endpoints) == nil)
    }

    // MARK: The file

    /// A `$XDG_RUNTIME_DIR` of this user's alone (0700) in a fresh directory.
    func runtimeDirectory() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let runtime = directory.file("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return (directory, runtime)
    }

    @Test func theFileKeepsWhatWasSavedInAPrivateDirectoryMadeWhenNeeded() throws {
        let (directory, runtime) = try runtimeDirectory()
        defer { withExtendedLifetime(directory) {} }
        let file = try #require(EtcdHealthFile(runtimeDirectory: runtime, endpoints: endpoints))
        #expect(file.load(endpoints) == EtcdEndpointHealth())
        #expect(!FileManager.default.fileExists(atPath: runtime + "/prefs"), "reading creates nothing")
        let health = EtcdEndpointHealth(answered: c, failed: [a: .init(time: EtcdEndpointHealth.now(), kind: "refused")])
        file.save(health)
        #expect(file.load(endpoints) == health)
        let folder = try FileManager.default.attributesOfItem(atPath: runtime + "/prefs")
        #expect(folder[.posixPermissions] as? Int == 0o700)
        let saved = try FileManager.default.attributesOfItem(atPath: runtime + "/prefs/" + file.name)
        #expect(saved[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime + "/prefs") == [file.name], "no temporary file left")
        // Another list of endpoints has a file of its own.
        #expect(EtcdHealthFile(runtimeDirectory: runtime, endpoints: [b, a, c])?.name != file.name)
        #expect(EtcdHealthFile(runtimeDirectory: nil, endpoints: endpoints) == nil)
        #expect(EtcdHealthFile(runtimeDirectory: "run", endpoints: endpoints) == nil)
    }

    /// A runtime directory, or its `prefs`, that is a symlink, another user's or open to others is
    /// not used: nothing is read from it or written to it.
    @Test func aDirectoryNotTheUsersAloneIsNotUsed() throws {
        let (directory, runtime) = try runtimeDirectory()
        let health = EtcdEndpointHealth(answered: b)
        let good = try #require(EtcdHealthFile(runtimeDirectory: runtime, endpoints: endpoints))
        good.save(health)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: runtime)
        let open = directory.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        var unusable = [directory.file("link"), open]
        if geteuid() == 0 {
            let foreign = directory.file("foreign")
            try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            #expect(chown(foreign, 65534, 65534) == 0)
            unusable.append(foreign)
        }
        for place in unusable {
            let file = try #require(EtcdHealthFile(runtimeDirectory: place, endpoints: endpoints))
            #expect(file.load(endpoints) == EtcdEndpointHealth(), "\(place)")
            file.save(EtcdEndpointHealth(answered: c))
        }
        for place in unusable.dropFirst() { #expect(try FileManager.default.contentsOfDirectory(atPath: place).isEmpty, "\(place)") }
        #expect(good.load(endpoints) == health, "the link's target is untouched")
        // Its `prefs` a symlink to a private directory, or open to others (holding a good file): not used either.
        let linked = directory.file("run-link"), opened = directory.file("run-open")
        for other in [linked, opened] {
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        try FileManager.default.createSymbolicLink(atPath: linked + "/prefs", withDestinationPath: runtime + "/prefs")
        try FileManager.default.createDirectory(atPath: opened + "/prefs", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(atPath: runtime + "/prefs/" + good.name, toPath: opened + "/prefs/" + good.name)
        for other in [linked, opened] {
            let file = try #require(EtcdHealthFile(runtimeDirectory: other, endpoints: endpoints))
            #expect(file.load(endpoints) == EtcdEndpointHealth(), "\(other)/prefs")
            file.save(EtcdEndpointHealth(answered: c))
        }
        #expect(good.load(endpoints) == health)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("run-open/prefs")) == [good.name])
    }

    /// What is not a regular file of the user's is not read, and a FIFO never holds the reader.
    @Test func onlyARegularFileIsRead() throws {
        let (directory, runtime) = try runtimeDirectory()
        defer { withExtendedLifetime(directory) {} }
        let file = try #require(EtcdHealthFile(runtimeDirectory: runtime, endpoints: endpoints))
        file.save(EtcdEndpointHealth(answered: b))
        let path = runtime + "/prefs/" + file.name
        let copy = runtime + "/saved"
        try FileManager.default.moveItem(atPath: path, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: copy)
        #expect(file.load(endpoints) == EtcdEndpointHealth(), "a symlink")
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        #expect(file.load(endpoints) == EtcdEndpointHealth(), "a FIFO without a writer")
        file.save(EtcdEndpointHealth(answered: c))
        #expect(file.load(endpoints) == EtcdEndpointHealth(answered: c), "replaced by a file")
    }
}
