import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

/// Foundation's PropertyListSerialization (CoreFoundation's codecs) as an oracle, both ways: it reads
/// what PrefsCore writes, and PrefsCore reads what it writes. Keys are ASCII because Swift
/// dictionaries merge canonically equal keys; UIDs are left out (Foundation has no public type).
@Suite struct FoundationDifferentialTests {
    static func foundationObject(_ value: PrefValue) -> Any {
        switch value {
        case .string(let s): return s
        case .integer(let i): return NSNumber(value: i)
        case .unsignedInteger(let u): return NSNumber(value: u)
        case .real(let r): return NSNumber(value: r)
        case .bool(let b): return b
        case .date(let d): return Date(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let bytes): return Data(bytes)
        case .array(let elements): return elements.map(foundationObject)
        case .dictionary(let d): return Dictionary(uniqueKeysWithValues: d.map { ($0.key, foundationObject($0.value)) })
        case .uid: fatalError("UIDs are not generated for this oracle")
        }
    }

    static func prefValue(_ object: Any) throws -> PrefValue {
        if type(of: object) == Bool.self { return .bool(object as! Bool) }
        switch object {
        case let s as String: return .string(s)
        case let d as Data: return .data([UInt8](d))
        case let d as Date: return .date(PrefDate(secondsSinceReferenceDate: d.timeIntervalSinceReferenceDate))
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "d", "f": return .real(n.doubleValue)
            case "Q": return .unsigned(n.uint64Value)
            default: return .integer(n.int64Value)
            }
        case let a as [Any]: return .array(try a.map(prefValue))
        case let d as [String: Any]: return .dictionary(PrefDictionary(try d.map { ($0.key, try prefValue($0.value)) }))
        default: throw TestFailure("unexpected Foundation type \(type(of: object))")
        }
    }

    @Test(arguments: [UInt64(7), TestSeed.run])
    func foundationAndPrefsCoreReadEachOther(seed: UInt64) throws {
        var random = RandomValues(seed: seed)
        random.includeUIDs = false
        random.asciiKeys = true
        for i in 0..<150 {
            let value = random.dictionary()
            for (format, ours) in [(PropertyListSerialization.PropertyListFormat.binary, PlistFormat.binary), (.xml, .xml)] {
                let expected = ours == .xml ? RoundTripTests.xmlMapping(value) : value
                let theirsReadingOurs = try PropertyListSerialization.propertyList(from: Data(try PropertyList.encode(value, as: ours)), format: nil)
                let read = try FoundationDifferentialTests.prefValue(theirsReadingOurs)
                #expect(read == expected, "\(TestSeed.reproduce(seed)) document \(i) \(ours): \(firstDifference(read, expected))")
                let theirs = try PropertyListSerialization.data(fromPropertyList: FoundationDifferentialTests.foundationObject(value), format: format, options: 0)
                let decoded = try PropertyList.decode([UInt8](theirs), as: ours)
                // CoreFoundation's XML writer drops the sign of −0.0 (it writes <real>0.0</real>).
                let written = ours == .binary ? expected : RoundTripTests.map(expected) { $0 == .real(-0.0) ? .real(0.0) : $0 }
                #expect(decoded == written, "\(TestSeed.reproduce(seed)) document \(i) \(ours): \(firstDifference(decoded, written))")
            }
        }
    }

    /// Foundation reads every conformance plist to the same value PrefsCore does, except
    /// empty_keys.plist, which CoreFoundation refuses (it takes the comment inside a <key> for a
    /// broken CDATA section; the document is valid XML and libplist's own test accepts it).
    @Test func foundationReadsTheCorpusAsWeDo() throws {
        var files = try Fixtures.conformanceFiles("plist/cpython-plistlib/valid").filter { !$0.contains("keyed_archive") }
        let failing = ["uid", "recursion", "malformed", "invalid_tag", "amp", "empty_keys"]
        files += try Fixtures.conformanceFiles("plist/libplist/data").filter { file in
            (file.hasSuffix(".plist") || file.hasSuffix(".bplist")) && !failing.contains { file.contains($0) }
        }
        files += try Fixtures.conformanceFiles("plist/real-world/iterm2")
        for file in files {
            let bytes = try Fixtures.bytes(file)
            let ours = try PropertyList.decode(bytes).value
            let theirs = try FoundationDifferentialTests.prefValue(try PropertyListSerialization.propertyList(from: Data(bytes), format: nil))
            #expect(theirs == ours, "\(file)")
        }
    }
}
