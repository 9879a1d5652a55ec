import Testing
@testable import PrefsCore
import PrefsTestSupport

/// What a snapshot keeps of the readings it is told, and its file's form: a place's keys are merged
/// only within one version, a reading of another version replaces the place whole, and a file that
/// is not exactly a snapshot (damaged, truncated, hostile) is none.
@Suite struct ReadSnapshotTests {
    func reading(_ location: SuiteLocation = .suite("app"), version: Int64, exists: Bool = true, _ values: PrefDictionary = [:],
                 absent: [String] = [], whole: Bool = false) -> PlaceReading {
        PlaceReading(location: location, version: version, exists: exists, values: values, absent: absent, whole: whole, revision: version + 10)
    }

    func answer(_ snapshot: ReadSnapshot, _ key: String, in location: SuiteLocation = .suite("app")) -> PrefValue?? {
        snapshot.places[location]?.value(key)
    }

    @Test func keysOfOneVersionAddUpAndAnotherVersionReplacesThem() {
        var snapshot = ReadSnapshot(store: "etcd://a:1/p", suite: "app")
        snapshot.add([reading(version: 5, ["a": 1])])
        snapshot.add([reading(version: 5, absent: ["b"])])
        #expect(answer(snapshot, "a") == .some(.some(1)))
        #expect(answer(snapshot, "b") == .some(nil), "known absent")
        #expect(answer(snapshot, "c") == nil, "never read: unknown")
        // The suite changed (its marker moved): what was known of version 5 is gone.
        snapshot.add([reading(version: 7, ["c": 3])])
        #expect(answer(snapshot, "a") == nil && answer(snapshot, "b") == nil && answer(snapshot, "c") == .some(.some(3)))
        #expect(snapshot.revision == 17)
        // A whole reading knows every key, and one key read later of its version adds nothing.
        snapshot.add([reading(version: 7, ["c": 3, "d": 4], whole: true)])
        snapshot.add([reading(version: 7, absent: ["z"])])
        #expect(answer(snapshot, "z") == .some(nil) && answer(snapshot, "d") == .some(.some(4)))
        #expect(snapshot.places[.suite("app")]?.whole == true)
    }

    /// Values with no marker (no version) are never merged: nothing would tell that they changed.
    /// A place not there (no marker, no value) is, until it appears.
    @Test func aPlaceWithoutAVersionIsMergedOnlyWhileItIsNotThere() {
        var snapshot = ReadSnapshot(store: "s", suite: "app")
        snapshot.add([reading(.global, version: 0, exists: false, absent: ["a"])])
        snapshot.add([reading(.global, version: 0, exists: false, absent: ["b"])])
        #expect(answer(snapshot, "a", in: .global) == .some(nil) && answer(snapshot, "b", in: .global) == .some(nil))
        snapshot.add([reading(.global, version: 0, exists: true, ["a": 1])])
        snapshot.add([reading(.global, version: 0, exists: true, ["b": 2])])
        #expect(answer(snapshot, "a", in: .global) == nil, "replaced, not merged")
        #expect(answer(snapshot, "b", in: .global) == .some(.some(2)))
    }

    @Test func aSuiteIsGoneWhenNoPlaceOfItsOwnIsThere() {
        let own: [SuiteLocation] = [.suite("app"), .registered("app"), .schema("app"), .managed("app")]
        var snapshot = ReadSnapshot(store: "s", suite: "app")
        #expect(!snapshot.isGone(own: own), "nothing read")
        snapshot.add([reading(version: 0, exists: false, absent: ["k"]), reading(.registered("app"), version: 3, ["r": 1])])
        #expect(!snapshot.isGone(own: own), "its registered defaults are there")
        snapshot.add([reading(.registered("app"), version: 0, exists: false, whole: true), reading(.global, version: 4, ["g": 1])])
        #expect(snapshot.isGone(own: own), "the global suite alone makes no suite")
    }

    @Test func aSnapshotFileKeepsEveryTypeAndEveryField() throws {
        var snapshot = ReadSnapshot(store: "etcds://b:2,a:1/p", suite: "NSGlobalDomain")
        let values: PrefDictionary = ["s": "x", "n": .integer(-3), "u": .unsignedInteger(.max), "r": 1.5, "b": true,
                                      "d": .date(PrefDate(secondsSinceReferenceDate: 0.25)), "x": .data([0, 255]), "a": [1, "2"],
                                      "o": ["k": .uid(7)]]
        snapshot.add([reading(.global, version: 9, values, whole: true), reading(.managed("NSGlobalDomain"), version: 2, ["m": 1], absent: ["q"]),
                      reading(.registered("NSGlobalDomain"), version: 0, exists: false, absent: ["q"]),
                      reading(.schema("NSGlobalDomain"), version: 0, exists: false, whole: true)])
        let bytes = try snapshot.encoded(written: PrefDate(secondsSinceReferenceDate: 1))
        #expect(ReadSnapshot.decoded(bytes) == snapshot)
    }

    /// Every truncation, and thousands of random changes of its bytes, decode to a snapshot or to
    /// none: never a crash, a hang, or a field of another type.
    @Test func aDamagedOrHostileFileIsNoSnapshot() throws {
        var snapshot = ReadSnapshot(store: "etcd://a:1/p", suite: "app")
        snapshot.add([reading(version: 5, ["a": 1, "b": ["c": [true, 2.5]]], whole: true), reading(.global, version: 0, exists: false, absent: ["a"])])
        let bytes = try snapshot.encoded(written: PrefDate(secondsSinceReferenceDate: 1))
        for length in 0..<bytes.count { #expect(ReadSnapshot.decoded(Array(bytes.prefix(length))) == nil) }
        var generator = SeededGenerator(seed: TestSeed.run)
        for _ in 0..<5000 {
            var damaged = bytes
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let decoded = ReadSnapshot.decoded(damaged) {
                // What decodes is a snapshot through and through: it encodes again, and decodes the same.
                #expect(ReadSnapshot.decoded(try decoded.encoded(written: PrefDate(secondsSinceReferenceDate: 1))) == decoded, "\(TestSeed.reproduce())")
            }
        }
        // Documents that are property lists but no snapshot.
        for document: PrefValue in [[:], ["prefs-snapshot": 2], "text", [1, 2],
                                    ["prefs-snapshot": 1, "store": "s", "suite": "app", "revision": 1, "written": .date(PrefDate(secondsSinceReferenceDate: 0)),
                                     "places": ["nowhere:x": ["version": 1, "exists": true, "whole": true, "values": [:], "absent": []]]],
                                    ["prefs-snapshot": 1, "store": "s", "suite": "app", "revision": 1, "written": .date(PrefDate(secondsSinceReferenceDate: 0)),
                                     "places": ["global": ["version": 1, "exists": true, "whole": true, "values": [:], "absent": [1]]]]] {
            #expect(ReadSnapshot.decoded(try PropertyList.encode(document, as: .binary)) == nil, "\(document)")
        }
        #expect(ReadSnapshot.decoded(try PropertyList.encode(["prefs-snapshot": 1], as: .xml)) == nil, "only binary")
    }
}
