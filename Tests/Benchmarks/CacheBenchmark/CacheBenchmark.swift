// A setting read per request, and another process's change observed: PrefsCore's typed reads
// (uncached and `cachingReads()`) against Foundation's `UserDefaults` on the same 50-key suite, and
// the time from another process's completed write to the app's AsyncSequence yielding.
// The CacheBenchmark target of the package, built in release by bench-cache.sh, with XDG_CONFIG_HOME
// pointing at a scratch directory.
//   CacheBenchmark reads ROUNDS READS       prints "reads NAME NANOSECONDS" per round and contender
//   CacheBenchmark fresh WRITES             prints "fresh NAME STALE WRITES" (reads right after another process's write)
//   CacheBenchmark latency SAMPLES          prints "latency values|changes NANOSECONDS" per sample
//   CacheBenchmark instances SUITES         prints "instances N INOTIFY THREADS" with N suites each observed and cached (N = 0, 1, SUITES)
//   CacheBenchmark drop DROPS               prints "drop NANOSECONDS" per cached suite dropped after one read
//   CacheBenchmark write                    (the other process: for each line N, sets counter = N, prints the time it returned)
import Foundation
import Glibc
import PrefsCore

extension Prefs.Keys {
    static let timeout = Prefs.Key<Int>("k23", default: 0)
    static let counter = Prefs.Key<Int>("counter", default: 0)
}

@main
struct CacheBenchmark {
    static let suiteName = "com.example.bench"

    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        switch arguments[1] {
        case "reads": try reads(rounds: Int(arguments[2])!, count: Int(arguments[3])!)
        case "fresh": try fresh(writes: Int(arguments[2])!)
        case "latency": try await latency(samples: Int(arguments[2])!)
        case "instances": try await instances(suites: Int(arguments[2])!)
        case "drop": try drop(count: Int(arguments[2])!)
        case "write": try write()
        default: fatalError("unknown mode \(arguments[1])")
        }
    }

    /// A 50-key suite (integers, strings, a few containers), written through PrefsCore.
    static func makeSuite() throws -> Prefs.Suite {
        let suite = Prefs.Suite(suiteName)
        try suite.update { changes in
            for index in 0..<50 {
                let key = "k" + (index < 10 ? "0" : "") + String(index)
                switch index % 5 {
                case 0: changes.contents[key] = .string("value \(index) of the benchmark suite")
                case 1: changes.contents[key] = .array([1, 2, 3])
                case 2: changes.contents[key] = .dictionary(["a": 1, "b": "two"])
                default: changes.contents[key] = .integer(Int64(index) * 1000)
                }
            }
        }
        return suite
    }

    /// Nanoseconds per read of one key, over `count` reads, in rounds that take turns.
    static func reads(rounds: Int, count: Int) throws {
        let suite = try makeSuite()
        let cached = suite.cachingReads()
        let defaults = UserDefaults(suiteName: suiteName)!
        let first = (try suite[.timeout], try cached[.timeout], defaults.integer(forKey: "k23"))
        precondition(first == (23_000, 23_000, 23_000))
        let contenders: [(String, () throws -> Int)] = [
            ("prefs-uncached", { try suite[.timeout] }),
            ("prefs-cached", { try cached[.timeout] }),
            ("userdefaults", { defaults.integer(forKey: "k23") }),
        ]
        for _ in 0..<rounds {
            for (name, read) in contenders {
                // Fewer uncached reads: each takes tens of microseconds.
                let reps = name == "prefs-uncached" ? max(1, count / 20) : count
                var sum = 0
                let start = nanoseconds()
                for _ in 0..<reps { sum &+= try read() }
                let elapsed = nanoseconds() - start
                precondition(sum == reps &* 23_000)
                print("reads \(name) \(Double(elapsed) / Double(reps))")
            }
        }
    }

    /// Another process writes; right after each write has returned there, one read of each
    /// contender: how many gave the old value.
    static func fresh(writes: Int) throws {
        let suite = try makeSuite()
        let cached = suite.cachingReads()
        let defaults = UserDefaults(suiteName: suiteName)!
        _ = (try cached[.counter], defaults.integer(forKey: "counter"))
        let writer = try Writer()
        var stale = ["prefs-cached": 0, "userdefaults": 0]
        for value in 1...writes {
            _ = try writer.write(value)
            if try cached[.counter] != value { stale["prefs-cached"]! += 1 }
            if defaults.integer(forKey: "counter") != value { stale["userdefaults"]! += 1 }
        }
        writer.end()
        for (name, count) in stale.sorted(by: { $0.key < $1.key }) { print("fresh \(name) \(count) \(writes)") }
    }

    /// Another process writes `counter`; the time from its write returning to the observing loop
    /// getting the value, through `values(of:)` and through `changes()`.
    static func latency(samples: Int) async throws {
        let suite = try makeSuite()
        let writer = try Writer()
        for kind in ["values", "changes"] {
            let seen = AsyncStream<(Int, UInt64)>.makeStream()
            let observer = Task {
                if kind == "values" {
                    for try await value in suite.values(of: .counter) { seen.continuation.yield((value, nanoseconds())) }
                } else {
                    for try await change in suite.changes(of: .counter) {
                        if case .integer(let value)? = change.new { seen.continuation.yield((Int(value), nanoseconds())) }
                    }
                }
            }
            var arrivals = seen.stream.makeAsyncIterator()
            // The watch is on once the value now came (values), or a first change (changes): until
            // then, the other process writes a new value every 50 ms.
            var base = try suite[.counter]
            if kind == "values" {
                _ = await arrivals.next()
            } else {
                let start = base
                let starter = Task {
                    var last = start
                    while !Task.isCancelled {
                        last += 1
                        _ = try writer.write(last)
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                    return last
                }
                var arrival = await arrivals.next()
                starter.cancel()
                base = try await starter.value
                while let (got, _) = arrival, got != base { arrival = await arrivals.next() }
            }
            for sample in 1...samples {
                let value = base + sample
                let written = try writer.write(value)
                while let (got, at) = await arrivals.next() {
                    if got == value {
                        print("latency \(kind) \(Int64(at) - Int64(written))")
                        break
                    }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            observer.cancel()
        }
        writer.end()
    }

    /// The inotify instances and threads of this process with 0, 1 and `suites` suites each
    /// observed (`values(of:)`, started) and cached (`cachingReads()`, read once).
    static func instances(suites: Int) async throws {
        func count(_ directory: String, _ matching: (String) -> Bool) -> Int {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return -1 }
            return entries.filter { matching((try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) ?? "") }.count
        }
        var held: [Any] = []
        var made = 0
        for target in [0, 1, suites] where target >= made {
            while made < target {
                let suite = Prefs.Suite(suiteName + ".n" + String(made))
                try suite.set(.counter, made)
                let values = try await suite.values(of: .counter).started()
                var iterator = values.makeAsyncIterator()
                _ = try await iterator.next()
                let cached = suite.cachingReads()
                _ = try cached[.counter]
                held.append(iterator)
                held.append(cached)
                made += 1
            }
            print("instances \(made) \(count("/proc/self/fd") { $0.contains("inotify") }) \(count("/proc/self/task") { _ in true })")
        }
        withExtendedLifetime(held) {}
    }

    /// Nanoseconds to drop a cached suite that has been read once (its watch goes with it).
    static func drop(count: Int) throws {
        _ = try makeSuite()
        for _ in 0..<count {
            var cached: Prefs.Suite? = Prefs.Suite(suiteName).cachingReads()
            _ = try cached?[.timeout]
            let start = nanoseconds()
            cached = nil
            let elapsed = nanoseconds() - start
            print("drop \(elapsed)")
            withExtendedLifetime(cached) {}
        }
    }

    /// The other process: for each line N read, sets counter = N, then prints when that returned.
    static func write() throws {
        let suite = Prefs.Suite(suiteName)
        while let line = readLine(), let value = Int(line) {
            try suite.set(.counter, value)
            FileHandle.standardOutput.write(Data("\(nanoseconds())\n".utf8))
        }
    }

    /// This program run as `write`, spoken to a line at a time.
    final class Writer: @unchecked Sendable {
        let process = Process()
        let input = Pipe(), output = Pipe()
        var pending: [UInt8] = []

        init() throws {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["write"]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// Has the writer set counter = `value`; the monotonic time its write returned.
        func write(_ value: Int) throws -> UInt64 {
            try input.fileHandleForWriting.write(contentsOf: Data("\(value)\n".utf8))
            while true {
                if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    return UInt64(line)!
                }
                let more = output.fileHandleForReading.availableData
                precondition(!more.isEmpty, "the writer ended")
                pending += more
            }
        }

        func end() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
