import Foundation
import Testing
@testable import PrefsCore

/// `prefs lock` on a real 3-member cluster, through the built binary: holders serialised and in
/// order, `--no-wait`, a semaphore, fencing, and a holder cut off from the cluster (a proxy that
/// goes silent) whose COMMAND is stopped before a second holder starts. Waits on events (FIFOs,
/// processes ending), never sleeps.
@Suite(.runsProcesses) struct EtcdLockTests {
    static let cluster = SharedCluster.threeMembers

    @Test func fiveHoldersNeverOverlap() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let run = try await fleet.shell("cd \"$HOME\"\n" + LockTests.holders(5) + "\ncat log")
        #expect(run.error.isEmpty && run.status == 0, "\(run.error)")
        #expect(try LockTests.overlap(run.outputText, holders: 5) == 1)
    }

    @Test func noWaitSemaphoreLocksAndFences() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let run = try await fleet.shell(#"""
            cd "$HOME"; mkfifo held go h2 go2
            prefs lock job -- sh -c 'echo "$PREFS_LOCK_TOKEN" > held; read x < go; prefs write app k held --fence "$PREFS_LOCK_TOKEN"; echo "inner=$?"' &
            holder=$!
            read token < held
            prefs lock job --no-wait -- echo never; echo "nowait=$?"
            prefs lock job --wait 300ms -- echo never; echo "wait=$?"
            prefs locks | awk -F '\t' -v t="$token" -v p="$holder" '{ print $1, ($3 == p), ($5 == t), NF }'
            echo > go
            wait $holder; echo "holder=$?"
            prefs write app k after --fence "job:$token"; echo "fenced=$?"
            prefs read app k
            prefs lock pool -n 2 -- sh -c 'echo > h2; read x < go2' & a=$!
            read x < h2
            prefs lock pool -n 2 --no-wait -- echo "second of two"
            prefs lock pool -n 2 --no-wait -- sh -c 'prefs lock pool -n 2 --no-wait -- echo never; echo "third=$?"'
            echo > go2; wait $a
            prefs locks | wc -l
            """#)
        #expect(run.outputText == """
            nowait=75
            wait=75
            job 1 1 5
            inner=0
            holder=0
            fenced=4
            held
            second of two
            third=75
            0

            """, "\(run.error)")
        let keys = try await fleet.cluster.etcdctl("get", "--prefix", "--keys-only", String(fleet.url.split(separator: "/").last!) + "/.locks/")
        #expect(keys.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "every lock key went with its lease: \(keys)")
    }

    /// The first holder reaches the cluster through a proxy that goes silent once it holds the
    /// lock; a second holder, direct to the cluster, waits. The first one's COMMAND must have been
    /// stopped (its SIGTERM trap ran) before the second one's COMMAND starts, and prefs exits 78.
    @Test(arguments: 1...3)
    func aHolderCutOffStopsItsCommandBeforeAnotherStarts(trial: Int) async throws {
        let cluster = try await Self.cluster.get()
        let fleet = try FleetSandbox(cluster)
        let silent = fleet.sandbox.directory.path + "/silent"
        let proxy = try EtcdProxy(upstream: cluster.clientEndpoints[trial % 3], mode: "silent-when:" + silent)
        let prefix = String(fleet.url.split(separator: "/").last!)
        let run = try await fleet.shell(#"""
            cd "$HOME"; mkfifo held
            PREFS_STORE=etcd://\#(proxy.endpoint)/\#(prefix) prefs lock cut --ttl 3 -- sh -c 'trap "echo stopped >> log; exit 0" TERM; echo started-A >> log; echo > held; sleep 1000 & wait' 2> a.err &
            a=$!
            read x < held
            touch \#(silent)
            prefs lock cut --ttl 3 -- sh -c 'echo started-B >> log'
            echo "B=$?"
            wait $a; echo "A=$?"
            cat log a.err
            """#)
        #expect(run.outputText.hasPrefix("B=0\nA=78\nstarted-A\nstopped\nstarted-B\nprefs: lock cut: lost (no keep-alive for "), "\(run.outputText)\(run.error)")
        #expect(run.outputText.hasSuffix(" s); COMMAND stopped\n"))
    }

    /// A holder killed with SIGKILL: its lease runs out and the next waiter starts.
    @Test func aKilledHolderLetsGoWhenItsLeaseEnds() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let run = try await fleet.shell(#"""
            cd "$HOME"; mkfifo ready
            prefs lock c --ttl 2 -- sh -c 'echo > ready; exec sleep 1000' & p=$!
            read x < ready
            kill -KILL $p; wait $p; echo "holder=$?"
            prefs lock c --wait 60s -- echo next
            """#)
        #expect(run.outputText == "holder=137\nnext\n", "\(run.error)")
    }

    /// The lock keys (`.locks/.named/…`) are not `gc`'s suite locks (`.locks/PLACE`), and neither
    /// `gc`, `check` nor `domains` takes them for a suite or something foreign, while a lock is
    /// held (a suite named like the lock too).
    @Test func gcAndCheckLeaveLockKeysAlone() async throws {
        let fleet = try FleetSandbox(try await Self.cluster.get())
        let run = try await fleet.shell(#"""
            prefs write named k v; prefs write app k v
            prefs lock named -- sh -c 'prefs check; echo "check=$?"; prefs gc; echo "gc=$?"; prefs domains; prefs locks | cut -f1'
            echo "lock=$?"
            """#)
        #expect(run.status == 0 && !run.error.contains("lock"), "\(run.error)")
        let lines = run.outputText.split(separator: "\n").map(String.init)
        #expect(lines.contains("check=0") && lines.contains("gc=0") && lines.suffix(4) == ["app", "named", "named", "lock=0"], "\(run.outputText)")
        #expect(!run.outputText.contains(".locks") && !run.outputText.contains("foreign"), "\(run.outputText)")
    }
}
