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
}
