import Foundation
import PrefsCore
import Synchronization

/// Real etcd members on loopback for the tests: `EtcdCluster(members: 1)` or `(members: 3)`.
///
/// Each member runs under a guardian shell that holds one end of a socket pair whose other end only
/// this process holds. The guardian kills its member with SIGKILL when told to (`kill(member:)`,
/// deinit), when this process dies in any way (the socket pair reads end of file: a crashed test
/// never leaves etcd running, and the data directory is removed then), or after `lifetime` seconds
/// at most (an hour by default: a cluster shared by a suite's tests must outlive the whole run on a
/// busy machine, where it took over ten minutes; one of 300 s was gone before its last tests). Data lives under /dev/shm when it can (fsync costs nothing there), each member has its
/// own client and peer ports, and elections are fast (heartbeat 50 ms, election timeout 250 ms).
package final class EtcdCluster: @unchecked Sendable {
    package struct Member: Sendable {
        package let name: String
        package let clientPort: UInt16
        package let peerPort: UInt16
        package var clientEndpoint: String { "127.0.0.1:\(clientPort)" }
        var peerURL: String { "http://127.0.0.1:\(peerPort)" }
    }

    /// A cluster whose client URLs are https: the server's certificate and key, the CA that
    /// etcdctl trusts, the client certificate it presents, and whether members require one
    /// (`--client-cert-auth`, with `ca` as the trusted CA for clients).
    package struct TLS: Sendable {
        package var certificate: String
        package var key: String
        package var ca: String
        package var client: (certificate: String, key: String)
        package var clientCertAuth: Bool

        package init(certificate: String, key: String, ca: String, client: (certificate: String, key: String), clientCertAuth: Bool) {
            (self.certificate, self.key, self.ca, self.client, self.clientCertAuth) = (certificate, key, ca, client, clientCertAuth)
        }

        /// The server and CA of `certificates`, etcdctl as `root`.
        package init(_ certificates: TestCertificates, clientCertAuth: Bool = true) {
            self.init(certificate: certificates.server.certificate, key: certificates.server.key, ca: certificates.ca,
                      client: certificates.client("root"), clientCertAuth: clientCertAuth)
        }
    }

    package let members: [Member]
    /// Set when the client URLs are https.
    package let tls: TLS?
    /// The scratch directory: a data directory and a log per member.
    package let directory: String
    package let lifetime: Double
    /// More options for every member (`--quota-backend-bytes 300000`…), after the usual ones.
    package let extraArguments: [String]
    private let lock = NSLock()
    private var guardians: [Int: Guardian] = [:]
    private var rootPassword: String?
    /// The place in `TestConcurrency.clusters` this cluster holds (`start`), given back when it goes.
    var place: AsyncLimiter?

    private struct Guardian {
        let process: Process
        /// This process's end of the socket pair: writing "kill" and closing it stops the member.
        let control: FileHandle
    }

    package static let etcdPath = "/usr/bin/etcd"
    package static let etcdctlPath = "/usr/bin/etcdctl"

    /// Starts `count` members and waits until each one answers with a leader (a few hundred ms for
    /// one member, about a second for three). Fails, never skips, when etcd is not installed.
    package init(members count: Int = 1, lifetime: Double = 3600, tls: TLS? = nil, extraArguments: [String] = []) throws {
        // The edit loop's guard (README, Test): a test that starts etcd fails, rather than slow a run meant to be quick.
        if ProcessInfo.processInfo.environment["PREFS_TEST_NO_ETCD"] == "1" {
            throw TestFailure("PREFS_TEST_NO_ETCD=1: this run starts no etcd cluster, and this test needs one (add it to the edit loop's --skip)")
        }
        for path in [EtcdCluster.etcdPath, EtcdCluster.etcdctlPath] where !FileManager.default.isExecutableFile(atPath: path) {
            throw TestFailure("\(path) not found: install etcd 3.4 or later (Debian: etcd-server, etcd-client)")
        }
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((base + "/prefs-etcd-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed in \(base)") }
        directory = String(cString: made)
        self.lifetime = lifetime
        self.tls = tls
        self.extraArguments = extraArguments
        let ports = try EtcdCluster.freePorts(2 * count)
        members = (0..<count).map { Member(name: "m\($0)", clientPort: ports[2 * $0], peerPort: ports[2 * $0 + 1]) }
        do {
            for index in members.indices { try start(member: index, initial: true) }
            for index in members.indices { try waitUntilHealthy(member: index) }
        } catch {
            stopAll()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        stopAll()
        try? FileManager.default.removeItem(atPath: directory)
        place?.release()
    }

    package var clientEndpoints: [String] { members.map(\.clientEndpoint) }

    package var endpoints: [EtcdEndpoint] { members.map { EtcdEndpoint(host: "127.0.0.1", port: $0.clientPort) } }

    /// `etcd://127.0.0.1:P1,127.0.0.1:P2…/PREFIX` (no path without a prefix); `etcds://` with TLS.
    package func url(prefix: String? = nil) -> String {
        (tls == nil ? "etcd://" : "etcds://") + clientEndpoints.joined(separator: ",") + (prefix.map { "/" + $0 } ?? "")
    }

    /// What etcdctl is given to reach the members (`https://` and certificates with TLS).
    private func etcdctlOptions(endpoints: [String]) -> [String] {
        guard let tls else { return ["--endpoints=" + endpoints.joined(separator: ",")] }
        return ["--endpoints=" + endpoints.map { "https://" + $0 }.joined(separator: ","),
                "--cacert=" + tls.ca, "--cert=" + tls.client.certificate, "--key=" + tls.client.key]
    }

    package func isRunning(member index: Int) -> Bool { lock.withLock { guardians[index] != nil } }

    /// Kills a member with SIGKILL and waits until it is gone.
    package func kill(member index: Int) {
        guard let guardian = lock.withLock({ guardians.removeValue(forKey: index) }) else { return }
        stop(guardian)
    }

    /// Starts a killed member again on its data directory and ports, and waits until it answers.
    package func restart(member index: Int) throws {
        kill(member: index)
        try start(member: index, initial: false)
        try waitUntilHealthy(member: index)
    }

    /// Stops a member's process with SIGSTOP: it keeps its connections open and answers nothing (as
    /// a stuck process, or a machine cut off without a reset, would) until `resume(member:)`.
    /// Returns once every thread of it has stopped (`stopProcess`): before, a member under load
    /// went on serving for a while after `kill` returned.
    package func pause(member index: Int) throws { try stopProcess(try pid(member: index)) }

    /// Lets a paused member run again (SIGCONT).
    package func resume(member index: Int) throws { try signal(member: index, SIGCONT) }

    /// The process ID of a running member's etcd (the child of its guardian shell).
    package func pid(member index: Int) throws -> pid_t {
        guard let guardian = lock.withLock({ guardians[index] }) else { throw TestFailure("member \(index) is not running") }
        guard let child = EtcdCluster.children(of: guardian.process.processIdentifier).first else { throw TestFailure("member \(index) has no etcd process") }
        return child
    }

    private func signal(member index: Int, _ signal: Int32) throws {
        guard Foundation.kill(try pid(member: index), signal) == 0 else { throw TestFailure("kill: errno \(errno)") }
    }

    /// The index of the member that is the leader now (waiting out an election, up to 5 s).
    package func leaderIndex() throws -> Int {
        let until = Date().addingTimeInterval(5)
        while true {
            let running = members.indices.filter { isRunning(member: $0) }
            let output = try? etcdctl(["endpoint", "status", "-w", "json"] + etcdctlOptions(endpoints: running.map { members[$0].clientEndpoint }))
            if let output, let index = EtcdCluster.leader(inStatus: output, members: members) { return index }
            guard Date() < until else { throw TestFailure("no leader among members \(running): \(output ?? "etcdctl failed")") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    static func leader(inStatus json: String, members: [Member]) -> Int? {
        guard case .array(let statuses)? = try? PropertyList.decode(Array(json.utf8), as: .json) else { return nil }
        func field(_ value: PrefValue?, _ path: String...) -> PrefValue? {
            path.reduce(value) { current, name in
                if case .dictionary(let d)? = current { return d[name] }
                return nil
            }
        }
        for status in statuses {
            guard let leader = field(status, "Status", "leader"), leader != .integer(0),
                field(status, "Status", "header", "member_id") == leader,
                case .string(let endpoint)? = field(status, "Endpoint")
            else { continue }
            return members.firstIndex { endpoint.hasSuffix($0.clientEndpoint) }
        }
        return nil
    }

    /// Creates the root user with `rootPassword` and turns authentication on; `etcdctl` then logs
    /// in as root.
    package func enableAuth(rootPassword: String) throws {
        try etcdctl(["user", "add", "root:\(rootPassword)"])
        try etcdctl(["auth", "enable"])
        setRootPassword(rootPassword)
    }

    func setRootPassword(_ password: String) { lock.withLock { rootPassword = password } }

    /// Runs etcdctl against the running members (as root once auth is on); its standard output.
    @discardableResult
    package func etcdctl(_ arguments: String...) throws -> String { try etcdctl(arguments) }

    @discardableResult
    package func etcdctl(_ arguments: [String]) throws -> String {
        try etcdctlOutput(arguments, runProcess(EtcdCluster.etcdctlPath, etcdctlCommand(arguments), timeout: 30))
    }

    /// `etcdctl`, awaited (`runProcess`).
    @discardableResult
    package func etcdctl(_ arguments: String...) async throws -> String { try await etcdctl(arguments) }

    @discardableResult
    package func etcdctl(_ arguments: [String]) async throws -> String {
        try etcdctlOutput(arguments, await runProcess(EtcdCluster.etcdctlPath, etcdctlCommand(arguments), timeout: 30))
    }

    private func etcdctlCommand(_ arguments: [String]) -> [String] {
        let running = members.indices.filter { isRunning(member: $0) }.map { members[$0].clientEndpoint }
        var options = etcdctlOptions(endpoints: running) + ["--command-timeout=5s", "--dial-timeout=2s"]
        if let password = lock.withLock({ rootPassword }) { options.append("--user=root:\(password)") }
        return options + arguments
    }

    private func etcdctlOutput(_ arguments: [String], _ result: ProcessResult) throws -> String {
        guard result.status == 0 else {
            throw TestFailure("etcdctl \(arguments.joined(separator: " ")) exited \(result.status): \(result.error)")
        }
        return result.outputText
    }

    /// The tail of a member's log, for a failure message.
    package func log(member index: Int) -> String {
        let text = (try? String(contentsOfFile: logPath(index), encoding: .utf8)) ?? ""
        return String(text.suffix(2000))
    }

    // MARK: Processes

    private func logPath(_ index: Int) -> String { directory + "/\(members[index].name).log" }

    private func start(member index: Int, initial: Bool) throws {
        let member = members[index]
        let scheme = tls == nil ? "http" : "https"
        var arguments = [
            "--name", member.name, "--data-dir", directory + "/" + member.name,
            "--listen-client-urls", "\(scheme)://\(member.clientEndpoint)", "--advertise-client-urls", "\(scheme)://\(member.clientEndpoint)",
            "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ","),
            "--initial-cluster-token", (directory as NSString).lastPathComponent,
            "--heartbeat-interval", "50", "--election-timeout", "250", "--logger", "zap", "--log-level", "warn",
        ]
        if initial { arguments += ["--initial-cluster-state", "new"] }
        if let tls {
            arguments += ["--cert-file", tls.certificate, "--key-file", tls.key]
            if tls.clientCertAuth { arguments += ["--client-cert-auth", "--trusted-ca-file", tls.ca] }
        }
        arguments += extraArguments
        let ends = try EtcdCluster.socketPair()
        // The guardian: starts etcd, then waits for a line ("kill": stop the member) or end of file
        // (this process died: stop it and remove the scratch directory), or the lifetime to pass.
        let script = """
            lifetime=$1 log=$2 scratch=$3; shift 3
            "$@" >>"$log" 2>&1 </dev/null &
            pid=$!
            if read -r -t "$lifetime" line; then kill -9 "$pid" 2>/dev/null; wait "$pid"; exit 0; fi
            kill -9 "$pid" 2>/dev/null; wait "$pid"; rm -rf "$scratch"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, "etcd-guardian", String(Int(lifetime)), logPath(index), directory, EtcdCluster.etcdPath] + arguments
        process.standardInput = FileHandle(fileDescriptor: ends.guardian, closeOnDealloc: true)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let control = FileHandle(fileDescriptor: ends.control, closeOnDealloc: true)
        try process.run()
        try? (process.standardInput as? FileHandle)?.close()
        lock.withLock { guardians[index] = Guardian(process: process, control: control) }
    }

    /// Tells the guardian to kill its member and waits until both are gone. Bounded: once a
    /// guardian did not act on "kill" and the test waited out its lifetime (an hour) in
    /// `waitUntilExit`; now the guardian and its etcd are killed outright after 10 s, and what
    /// state the guardian was in goes to stderr for the log.
    private func stop(_ guardian: Guardian) {
        let pid = guardian.process.processIdentifier
        let members = EtcdCluster.children(of: pid)
        try? guardian.control.write(contentsOf: Array("kill\n".utf8))
        try? guardian.control.close()
        if EtcdCluster.waitForExit(guardian.process, seconds: 10) { return }
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "gone"
        let channel = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
        FileHandle.standardError.write(Data("EtcdCluster: guardian \(pid) did not stop its member within 10 s (stat: \(state.prefix(80)), wchan: \(channel)); killing it and etcd \(members)\n".utf8))
        for member in members { Foundation.kill(member, SIGKILL) }
        Foundation.kill(pid, SIGKILL)
        if !EtcdCluster.waitForExit(guardian.process, seconds: 10) {
            FileHandle.standardError.write(Data("EtcdCluster: guardian \(pid) still not gone 10 s after SIGKILL\n".utf8))
        }
    }

    /// Whether `process` exited within `seconds`: Foundation saw it go, or /proc shows it gone or a
    /// zombie (never an unbounded `waitUntilExit`).
    private static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !process.isRunning || hasExited(process.processIdentifier) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// The process IDs of `pid`'s children.
    private static func children(of pid: pid_t) -> [pid_t] {
        let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return list.split(separator: " ").compactMap { pid_t($0) }
    }

    private func stopAll() {
        let all = lock.withLock { () -> [Guardian] in
            defer { guardians.removeAll() }
            return Array(guardians.values)
        }
        all.forEach(stop)
    }

    /// Waits (up to 10 s) until the member's /health says it has a leader and serves reads.
    private func waitUntilHealthy(member index: Int) throws {
        let until = Date().addingTimeInterval(10)
        while Date() < until {
            if tls != nil {
                let result = try? runProcess(EtcdCluster.etcdctlPath, ["endpoint", "health", "--command-timeout=1s"]
                                             + etcdctlOptions(endpoints: [members[index].clientEndpoint]), timeout: 10)
                if result?.status == 0 { return }
            } else if let answer = EtcdCluster.httpGet(port: members[index].clientPort, path: "/health"),
                      answer.contains("\"health\":\"true\"") {
                return
            }
            guard isRunning(member: index), lock.withLock({ guardians[index]?.process.isRunning }) == true else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("etcd member \(index) did not become healthy; its log: \(log(member: index))")
    }
}

extension EtcdCluster {
    /// `count` distinct loopback ports that were free a moment ago, picked at random *below* the
    /// kernel's ephemeral range (`net.ipv4.ip_local_port_range`). A port the kernel hands out for
    /// `bind(0)` comes from that range, and so does the local port of every outgoing connection — the
    /// members of a cluster dial each other as they start — so such a port could be taken again
    /// before etcd binds it, or while a killed member waits to be restarted on it ("address already
    /// in use"). Below the range only another listener can take it, and no port is handed out twice in
    /// the life of the test process: two clusters starting at once checked the same port free before
    /// either bound it, and a killed member's port, free until its restart, could go to another.
    package static func freePorts(_ count: Int) throws -> [UInt16] {
        let ephemeralLow = ephemeralRangeLow()
        let range = UInt16(max(1_024, Int(ephemeralLow) - 16_384))..<ephemeralLow
        return try handedOut.withLock { handedOut in
            var ports: [UInt16] = []
            for _ in 0..<10_000 where ports.count < count {
                let port = UInt16.random(in: range)
                if !handedOut.contains(port), try canBind(port) {
                    ports.append(port)
                    handedOut.insert(port)
                }
            }
            guard ports.count == count else { throw TestFailure("no \(count) free loopback ports in \(range)") }
            return ports
        }
    }

    /// Every port `freePorts` has given.
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// The first port of the kernel's ephemeral range (32768 unless configured otherwise).
    static func ephemeralRangeLow() -> UInt16 {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { UInt16($0) } ?? 32_768
    }

    /// Whether a listening socket could bind `port` on loopback now.
    static func canBind(_ port: UInt16) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    package static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A socket pair, both ends close-on-exec from the start (so no other child inherits them).
    static func socketPair() throws -> (guardian: Int32, control: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw TestFailure("socketpair: errno \(errno)")
        }
        return (ends[0], ends[1])
    }

    /// A plain HTTP/1.0 GET on loopback, independent of the client under test; nil on any failure.
    static func httpGet(port: UInt16, path: String, timeout: Double = 1) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while response.count < 1 << 20 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 { return nil }
            if n == 0 { break }
            response += buffer[..<n]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
