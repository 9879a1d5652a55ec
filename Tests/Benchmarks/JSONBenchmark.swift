// JSON decode timings of PrefsCore, one line per run: NAME prefs SECONDS. Compiled by bench-json.sh
// into one module with the PrefsCore sources (whole-module, -O) and the CPrefsSystem C files.
//   json-benchmark REPS FILE...     PropertyList.decode of each file's bytes, in memory
import Glibc

@main
struct JSONBenchmark {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        try body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
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
            guard format == .json, case .dictionary(let root) = value, root.count == 100_000 else {
                fatalError("\(path): expected a JSON dictionary of 100000 keys")
            }
            for _ in 0..<reps {
                let time = try seconds { _ = try PropertyList.decode(bytes) }
                print("\(name)\tprefs\t\(time)")
            }
        }
    }
}
