// SHA-256 throughput of PrefsCore's implementations. Compiled by bench-sha256.sh into one module
// with the PrefsCore sources (whole-module, -O) and the CPrefsSystem C files.
//   sha256-benchmark memory REPS FILE            MB/s of each implementation on FILE's bytes in memory,
//                                                and on as many bytes from a 64 KiB buffer in the cache;
//                                                then of the tree digest (SHA256Tree: 1 MiB pieces hashed
//                                                several at once) of the bytes in memory
//   sha256-benchmark portable|accelerated FILE   FILE's digest, read in 1 MiB pieces as blobs are checked
import Glibc

@main
struct SHA256Benchmark {
    /// CPU time of `body` on this thread: steadier than wall time on a shared machine.
    static func seconds(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        let fastest = SHA256.Implementation.fastest
        let file = try FileDescriptor.open(arguments.last!, O_RDONLY)  // closed by its deinit
        switch arguments[1] {
        case "memory":
            let bytes = try file.readAll()
            var implementations: [(String, SHA256.Implementation)] = [("portable", .portable)]
            if fastest != .portable { implementations.append(("accelerated (\(fastest))", fastest)) }
            for (name, implementation) in implementations {
                var best = Double.infinity, inCache = Double.infinity
                var digest: [UInt8] = []
                for _ in 0..<Int(arguments[2])! {
                    best = min(best, seconds { digest = SHA256.hash(bytes, implementation: implementation) })
                    // The same number of bytes from a 64 KiB buffer that stays in the cache (as
                    // `openssl speed -bytes 65536` hashes).
                    inCache = min(inCache, seconds {
                        var hasher = SHA256(implementation: implementation)
                        bytes[..<65536].withUnsafeBytes { for _ in 0..<bytes.count / 65536 { hasher.update($0) } }
                        _ = hasher.finish()
                    })
                }
                let rate = Double(bytes.count) / 1e6 / best, cachedRate = Double(bytes.count / 65536 * 65536) / 1e6 / inCache
                print("\(name)\t\(String(format: best * 1e3))\t\(String(format: rate))\t\(String(format: cachedRate))\t\(Hex.encode(digest))")
            }
            for (name, implementation) in implementations {
                var best = Double.infinity
                var digest: [UInt8] = []
                for _ in 0..<Int(arguments[2])! {
                    best = min(best, seconds { digest = SHA256Tree.hash(bytes, implementation: implementation) })
                }
                print("tree, \(name)\t\(String(format: best * 1e3))\t\(String(format: Double(bytes.count) / 1e6 / best))\t-\t\(Hex.encode(digest))")
            }
        case let mode:
            var hasher = SHA256(implementation: mode == "portable" ? .portable : fastest)
            try file.forEachChunk(overlapping: { piece, _ in hasher.update(piece) })
            print(Hex.encode(hasher.finish()))
        }
    }

    static func String(format value: Double) -> Swift.String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
