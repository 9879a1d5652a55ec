// Decode/encode timings for PrefsCore and Foundation on the same documents, interleaved rep by rep.
// The CodecBenchmark target of the package, built in release by bench-codecs.sh.
//   CodecBenchmark REPS NAME FILE...   (FILE ending .bin.plist, .xml.plist or .json)
import Foundation
import PrefsCore

@main
struct CodecBenchmark {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        let reps = Int(arguments[1])!
        let name = arguments[2]
        for path in arguments[3...] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let data = Data(bytes)
            let format: PlistFormat = path.hasSuffix(".json") ? .json : path.hasSuffix(".bin.plist") ? .binary : .xml
            let value = try PropertyList.decode(bytes, as: format)
            let object: Any = format == .json
                ? try JSONSerialization.jsonObject(with: data)
                : try PropertyListSerialization.propertyList(from: data, format: nil)
            var best = [String: Double]()
            func record(_ key: String, _ time: Double) { best[key] = min(best[key] ?? .infinity, time) }
            for _ in 0..<reps {
                record("prefs decode", try seconds { _ = try PropertyList.decode(bytes, as: format) })
                record("prefs encode", try seconds { _ = try PropertyList.encode(value, as: format) })
                if format == .json {
                    record("foundation decode", try seconds { _ = try JSONSerialization.jsonObject(with: data) })
                    record("foundation encode", try seconds { _ = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) })
                } else {
                    record("foundation decode", try seconds { _ = try PropertyListSerialization.propertyList(from: data, format: nil) })
                    let out: PropertyListSerialization.PropertyListFormat = format == .binary ? .binary : .xml
                    record("foundation encode", try seconds { _ = try PropertyListSerialization.data(fromPropertyList: object, format: out, options: 0) })
                }
            }
            for (key, time) in best.sorted(by: { $0.key < $1.key }) {
                print("\(name)\t\(format.rawValue)\t\(key)\t\(String(format: "%.6f", time))")
            }
        }
    }
}
