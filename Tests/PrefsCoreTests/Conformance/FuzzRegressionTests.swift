import Foundation
import Testing
@testable import PrefsCore

/// Inputs the fuzzers (Tests/Fuzz) once found failing, kept forever: each folder is named for the
/// decoder, and the fuzz target's property must hold for every file — decoding never crashes, and
/// whatever decodes survives that format's round trip.
@Suite struct FuzzRegressionTests {
    static let folder = Fixtures.packageRoot + "/Tests/PrefsCoreTests/Fixtures/fuzz-regressions"

    static var cases: [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return folders.flatMap { sub in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + sub)) ?? []).map { sub + "/" + $0 }
        }.sorted()
    }

    @Test func thereAreRegressionInputs() {
        #expect(!FuzzRegressionTests.cases.isEmpty)
    }

    @Test(arguments: FuzzRegressionTests.cases)
    func roundTripHolds(file: String) throws {
        let bytes = try Fixtures.bytes(FuzzRegressionTests.folder + "/" + file)
        try FuzzRegressionTests.lookupAndPatchAgreeWithDecoding(bytes, file)
        for format in PlistFormat.allCases {
            guard let value = try? PropertyList.decode(bytes, as: format) else { continue }
            let once = try PropertyList.encode(value, as: format)
            let again = try PropertyList.decode(once, as: format)
            switch format {
            case .xml: #expect(again == RoundTripTests.xmlMapping(value), "\(file) as \(format)")
            case .json: #expect(try PropertyList.encode(again, as: .json) == once, "\(file) as \(format)")
            default: #expect(again == value, "\(file) as \(format)")
            }
        }
    }

    /// The property of the fuzzer's patch target: lookups and patches agree with full decoding.
    static func lookupAndPatchAgreeWithDecoding(_ bytes: [UInt8], _ file: String) throws {
        // As the store reads a file: the format by content, refusing what looks like UTF-16.
        guard let format = try? PropertyList.detect(bytes), format == .xml || format == .binary else { return }
        let root: PrefDictionary?
        if case .dictionary(let d)? = try? PropertyList.decode(bytes).value { root = d } else { root = nil }
        try bytes.withUnsafeBufferPointer { buffer in
            if let root {
                for key in root.keys.prefix(4) + ["absent"] {
                    #expect(try PropertyList.lookup(key, in: buffer).value == root[key], "\(file): lookup of \(key)")
                }
            }
            let result = Result { try TopLevelPatch.apply(to: buffer, keys: ["fuzz", "other"]) { $0["fuzz"] = "x"; $0["other"] = nil } }
            guard var expected = root else {
                #expect(throws: PrefsError.self, "\(file): a patch accepted a document decoding refuses") { try result.get() }
                return
            }
            expected["fuzz"] = "x"
            expected["other"] = nil
            switch try result.get() {
            case .patched(let new): #expect(try PropertyList.decode(new, as: format) == .dictionary(expected), "\(file)")
            case .unchanged: #expect(root == expected, "\(file)")
            case .unsupported: break
            }
        }
    }
}
