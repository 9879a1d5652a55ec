// JSON decode timings of PrefsCore, one line per run: NAME prefs WALL-SECONDS CPU-SECONDS (CPU time
// of this thread: steadier than wall time on a shared machine). Compiled by bench-json.sh
// into one module with the PrefsCore sources (whole-module, -O) and the CPrefsSystem C files.
//   json-benchmark REPS FILE...     PropertyList.decode of each file's bytes, in memory
import Glibc

@main
struct JSONBenchmark {
    static func seconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        var start = timespec(), end = timespec(), cpuStart = timespec(), cpuEnd = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuStart)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuEnd)
        clock_gettime(CLOCK_MONOTONIC, &end)
        func difference(_ a: timespec, _ b: timespec) -> Double { Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9 }
        return (difference(start, end), difference(cpuStart, cpuEnd))
    }

    /// The file's bytes, with plain stdio (the benchmark leans on nothing but the decoder).
    static func contents(of path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[..<n] }
        return bytes
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        let reps = Int(arguments[1])!
        for path in arguments[2...] {
            let bytes = contents(of: path)
            let name = String(path.split(separator: "/").last!.dropLast(".json".count))
            let (value, format) = try PropertyList.decode(bytes)  // warm-up, and a check
            guard format == .json, case .dictionary(let root) = value, !root.isEmpty else {
                fatalError("\(path): expected a JSON dictionary with keys")
            }
            for _ in 0..<reps {
                let time = try seconds { _ = try PropertyList.decode(bytes) }
                print("\(name)\tprefs\t\(time.wall)\t\(time.cpu)")
            }
        }
    }
}
