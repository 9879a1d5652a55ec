import Foundation
import Testing
@testable import PrefsCore

/// `prefs lock` and `prefs locks` on files, through the built binary in bash scripts: holders
/// serialised, a semaphore, `--no-wait`, fencing, exit statuses, signals passed on, a crashed
/// holder. Every wait is on an event (a FIFO opened, a process ended), never a sleep; the short
/// sleeps inside COMMANDs only widen the window an overlap would show in.
@Suite(.runsProcesses) struct LockTests {
    /// The lines `start I` / `end I` that concurrent holders appended: each holder's pair, and the
    /// most that held at once.
    static func overlap(_ log: String, holders: Int) throws -> Int {
        var inside = Set<String>(), most = 0
        var started = 0, ended = 0
        for line in log.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { throw TestFailure("log line \(line)") }
            if parts[0] == "start" {
                inside.insert(String(parts[1]))
                started += 1
            } else {
                guard inside.remove(String(parts[1])) != nil else { throw TestFailure("\(parts[1]) ended without starting") }
                ended += 1
            }
            most = max(most, inside.count)
        }
        guard started == holders, ended == holders else { throw TestFailure("\(started) started, \(ended) ended of \(holders):\n\(log)") }
        return most
    }

    /// Holders that each append `start I`, pause, `end I` to `log`, run at once; their statuses.
    static func holders(_ count: Int, options: String = "", log: String = "log") -> String {
        """
        pids=()
        for i in $(seq \(count)); do prefs lock job \(options) -- sh -c 'echo "start $1" >> \(log); sleep 0.05; echo "end $1" >> \(log)' sh "$i" & pids+=($!); done
        for p in "${pids[@]}"; do wait "$p" || echo "holder failed: $?"; done
        """
    }

    @Test func fiveHoldersNeverOverlap() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await sandbox.shell("cd \"$HOME\"\n" + Self.holders(5) + "\ncat log")
        #expect(run.error.isEmpty && run.status == 0, "\(run.error)")
        #expect(try Self.overlap(run.outputText, holders: 5) == 1)
    }

    @Test func noWaitWaitLocksAndFences() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await sandbox.shell(#"""
            cd "$HOME"; mkfifo held go
            prefs lock job -- sh -c 'echo "$PREFS_LOCK_NAME $PREFS_LOCK_TOKEN" > held; read x < go; prefs write app k held --fence "$PREFS_LOCK_TOKEN"; echo "inner=$?"' &
            holder=$!
            read name token < held
            echo "name=$name"
            prefs lock job --no-wait -- echo never; echo "nowait=$?"
            prefs lock job --wait 200ms -- echo never; echo "wait=$?"
            prefs locks | awk -F '\t' -v t="$token" -v p="$holder" '{ print $1, ($2 ~ /@/), ($3 == p), ($4 ~ /^20[0-9-]+T[0-9:]+Z$/), ($5 == t), NF }'
            prefs locks 'j*' | cut -f1; prefs locks 'x*'; echo "pattern=$?"
            echo > go
            wait $holder; echo "holder=$?"
            PREFS_LOCK_NAME=job prefs write app k after --fence "$token"; echo "fenced=$?"
            prefs write app k after --fence "job:$token"; echo "named=$?"
            prefs write app k after --fence "$token"; echo "unnamed=$?"
            prefs read app k
            next=$(prefs lock job -- sh -c 'echo "$PREFS_LOCK_TOKEN"')
            [ "$next" -gt "$token" ] && echo "token grows"
            prefs locks | wc -l
            """#)
        #expect(run.outputText == """
            name=job
            nowait=75
            wait=75
            job 1 1 1 1 5
            job
            pattern=0
            inner=0
            holder=0
            fenced=4
            named=4
            unnamed=64
            held
            token grows
            0

            """)
        #expect(run.error.contains("prefs: lock job: not obtained: held by "), "\(run.error)")
        #expect(run.error.contains("prefs: lock job: token "), "\(run.error)")
        #expect(run.error.contains("does not hold the lock"), "\(run.error)")
    }

    @Test func aSemaphoreAdmitsN() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await sandbox.shell(#"""
            cd "$HOME"; mkfifo h1 h2 go1 go2
            prefs lock job -n 2 -- sh -c 'echo > h1; read x < go1' & a=$!
            read x < h1
            prefs lock job -n 2 -- sh -c 'echo > h2; read x < go2' & b=$!
            read x < h2
            prefs lock job -n 2 --no-wait -- echo never; echo "third=$?"
            prefs locks | wc -l
            echo > go1; wait $a
            prefs lock job -n 2 --no-wait -- echo "freed"
            echo > go2; wait $b
            """# + "\n" + Self.holders(6, options: "-n 2") + "\ncat log")
        let lines = run.outputText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.prefix(3) == ["third=75", "2", "freed"], "\(run.outputText)\(run.error)")
        #expect(try Self.overlap(lines.dropFirst(3).joined(separator: "\n"), holders: 6) <= 2)
    }

    @Test func exitStatusesAndSignalsAreCommands() async throws {
        let sandbox = try ProcessSandbox()
        // The last COMMAND sleeps in short steps: a sleep forked just before the forwarded SIGTERM
        // can miss it (the shell's child takes it before it execs sleep), and a long one would hold
        // the output open.
        let run = try await sandbox.shell(#"""
            cd "$HOME"; mkfifo ready; printf 'x' > plain
            prefs lock s -- sh -c 'exit 42'; echo "exit=$?"
            prefs lock s -- no-such-command-here; echo "missing=$?"
            prefs lock s -- ./plain; echo "plain=$?"
            prefs lock s -- sh -c 'kill -TERM $$'; echo "killed=$?"
            echo hello | prefs lock s -- cat
            prefs lock s -n 0 -- true; echo "n0=$?"
            prefs lock 'a/b' -- true; echo "name=$?"
            prefs lock s --wait 1s --no-wait -- true; echo "both=$?"
            prefs lock s --ttl 10x -- true; echo "ttl=$?"
            prefs lock s true; echo "nodashes=$?"
            prefs lock s -- sh -c 'trap "echo got TERM; exit 7" TERM; echo > ready; while :; do sleep 0.1; done' & p=$!
            read x < ready
            kill -TERM $p; wait $p; echo "forwarded=$?"
            """#)
        #expect(run.outputText == """
            exit=42
            missing=127
            plain=126
            killed=143
            hello
            n0=64
            name=64
            both=64
            ttl=64
            nodashes=64
            got TERM
            forwarded=7

            """, "\(run.error)")
        #expect(run.error.contains("prefs: lock: no-such-command-here: command not found\n"))
    }

    /// A holder killed with SIGKILL lets the lock go at once, and its COMMAND is killed with it.
    @Test func aKilledHolderLetsGo() async throws {
        let sandbox = try ProcessSandbox()
        let run = try await sandbox.shell(#"""
            cd "$HOME"; mkfifo ready
            prefs lock c -- sh -c 'echo $$ > child; echo > ready; exec sleep 1000' & p=$!
            read x < ready
            kill -KILL $p; wait $p; echo "holder=$?"
            prefs lock c --wait 30s -- echo next
            child=$(cat child)
            for i in $(seq 3000); do state=$(cut -d ' ' -f 3 /proc/$child/stat 2>/dev/null) || break; [ "$state" = Z ] && break; sleep 0.01; done
            [ -z "$state" ] || [ "$state" = Z ] && echo "child gone"
            """#)
        #expect(run.outputText == "holder=137\nnext\nchild gone\n", "\(run.error)")
    }
}
