import Foundation
import Testing
@testable import PrefsCore

/// An etcd endpoint's host name is looked up in `/etc/hosts` and DNS only, never through the NSS
/// modules the `hosts:` line of `/etc/nsswitch.conf` names: glibc loads those with dlopen, and a
/// statically linked prefs (the release build) cannot load them safely. Every build resolves alike.
@Suite struct HostNameResolutionTests {
    /// The prefs under test: `$PREFS_STATIC_BINARY` when set (`.ci/run` runs this suite again with
    /// the static release build), else the tests' own build.
    static var binary: String {
        ProcessInfo.processInfo.environment["PREFS_STATIC_BINARY"].flatMap { $0.isEmpty ? nil : $0 } ?? Paths.binary
    }

    /// The installed NSS module `name` (`libnss_NAME.so.2` where the dynamic linker looks); fails,
    /// never skips, when it is missing.
    static func module(_ name: String, package: String) throws -> String {
        let file = "libnss_\(name).so.2"
        for directory in ["/lib", "/usr/lib"] {
            let subdirectories = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for candidate in [directory] + subdirectories.map({ directory + "/" + $0 }) {
                if FileManager.default.fileExists(atPath: candidate + "/" + file) { return candidate + "/" + file }
            }
        }
        throw TestFailure("\(file) is not installed (Debian: \(package)); Tests/run-tests.sh installs it")
    }

    /// In a private mount namespace whose `nsswitch.conf` names installed modules (`myhostname`,
    /// `mdns4_minimal`), one that is not installed and `resolve` before `files dns`: a name in
    /// `/etc/hosts` reaches the cluster, an unknown name is 69 naming it, so is a name only
    /// `myhostname` knows (`*.localhost`, on which the static build crashed), and no module is ever
    /// opened (strace).
    @Test(.enabled(if: getuid() == 0, "needs root: unshare -m and mount --bind"))
    func namesComeFromHostsAndDNSOnly() async throws {
        _ = try HostNameResolutionTests.module("myhostname", package: "libnss-myhostname")
        _ = try HostNameResolutionTests.module("mdns4_minimal", package: "libnss-mdns")
        let strace = try requireProgram("strace", install: "Debian: strace")
        let cluster = try await EtcdTests.cluster.get()
        let sandbox = try ProcessSandbox()
        let nsswitch = try sandbox.directory.write("nsswitch.conf", """
            passwd: files
            group: files
            hosts: myhostname mdns4_minimal [NOTFOUND=return] prefsnosuchmodule resolve files dns

            """)
        let hosts = try sandbox.directory.write("hosts", "127.0.0.1 localhost\n127.0.0.1 prefs-etcd-test\n")
        // Nothing answers DNS here: a lookup of an unknown name fails with "temporary failure",
        // which prefs tries again until PREFS_ETCD_TIMEOUT. The kernel rate-limits the ICMP
        // "port unreachable" that ends each attempt at once, so some attempts wait out the
        // resolver's 1 s instead, and the timeout may fall inside one: then the error says it timed
        // out resolving the name (as EtcdFailoverTests accepts for the same case) — it failed under
        // load, and then alone, one run in four.
        let resolv = try sandbox.directory.write("resolv.conf", "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
        let port = cluster.members[0].clientPort
        let prefix = "t" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let trace = sandbox.directory.file("trace")
        let script = """
            mount --bind '\(nsswitch)' /etc/nsswitch.conf && mount --bind '\(hosts)' /etc/hosts &&
              mount --bind '\(resolv)' /etc/resolv.conf || exit 99
            export PREFS_STORE=etcd://prefs-etcd-test:\(port)/\(prefix) PREFS_ETCD_TIMEOUT=10
            '\(strace)' -f -qq -e trace=openat -o '\(trace)' '\(HostNameResolutionTests.binary)' write s k v; echo "write $?"
            '\(HostNameResolutionTests.binary)' read s k; echo "read $?"
            PREFS_STORE=etcd://prefs-unknown-host:\(port)/\(prefix) '\(HostNameResolutionTests.binary)' read s k; echo "unknown $?"
            # myhostname answers *.localhost: the static build died here with SIGSEGV (139).
            PREFS_STORE=etcd://prefs.localhost:\(port)/\(prefix) '\(HostNameResolutionTests.binary)' read s k; echo "myhostname $?"
            """
        let run = try await runProcess("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/bash", "-c", script],
                                 environment: sandbox.environment, timeout: 120)
        #expect(run.outputText == "write 0\nv\nread 0\nunknown 69\nmyhostname 69\n", "\(run.outputText) \(run.error)")
        let errors = run.error.split(separator: "\n")
        #expect(errors.count == 2 && errors.allSatisfy {
            $0.hasPrefix("prefs: ") && ($0.contains(": cannot resolve the host: ") || $0.contains(": timed out resolving "))
        }, "\(run.error)")
        #expect(errors.first?.contains("prefs-unknown-host") == true && errors.last?.contains("prefs.localhost") == true, "\(run.error)")
        let opened = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("libnss_") }
        #expect(opened.isEmpty, "\(opened)")
    }
}
