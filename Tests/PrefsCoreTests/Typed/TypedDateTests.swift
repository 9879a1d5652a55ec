import Foundation
import Testing
@testable import PrefsCore

struct Session: Codable, Equatable {
    var user: String
    var started: Date
}

extension Prefs.Keys {
    static let stamp = Prefs.Key<Date?>("stamp")
    static let session = Prefs.Key<Session?>("session")
}

/// A `Date` reads back as it was stored: a suite the typed API creates is a binary property list
/// (as `UserDefaults` writes on macOS), and an XML suite, which keeps whole seconds, refuses a date
/// with a fraction of a second instead of rounding it silently.
@Suite struct TypedDateTests {
    static let fractional = Date(timeIntervalSinceReferenceDate: 788_918_645.25)
    static let given = PrefDate(secondsSinceReferenceDate: 788_918_645.25).iso8601()

    @Test(arguments: FileSystemKind.allCases)
    func aDateRoundTripsExactlyInASuiteTheTypedAPICreates(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        let suite = Prefs.Suite("com.example.dates", store: fixture.store)
        let session = Session(user: "ann", started: TypedDateTests.fractional)
        try suite.set(.session, session)
        try suite.set(.stamp, TypedDateTests.fractional)
        #expect(try suite[.session] == session)
        #expect(try suite[.stamp] == TypedDateTests.fractional)
        let file = try fixture.fixture.fileSystem.contents(of: fixture.root + "/config/com.example.dates.plist")
        #expect(Array(file.prefix(8)) == Array("bplist00".utf8))
    }

    @Test(arguments: FileSystemKind.allCases)
    func anXMLSuiteRefusesAFractionalDateNamingSuiteAndKeyAndChangesNothing(kind: FileSystemKind) throws {
        let fixture = try LayerFixture(kind)
        try fixture.put("config/com.example.dates.plist", ["name": "x"])  // XML, as `prefs write` creates it
        let path = fixture.root + "/config/com.example.dates.plist"
        let before = try fixture.fixture.fileSystem.contents(of: path)
        let suite = Prefs.Suite("com.example.dates", store: fixture.store)
        let reason = "an XML suite keeps dates in whole seconds, and this date has a fraction of a second: give a whole second, or keep the suite in a binary file; nothing changed"
        let error = PrefsError.invalidValue(domain: "com.example.dates", key: "stamp", flag: nil, given: TypedDateTests.given, reason: reason)
        #expect(throws: error) { try suite.set(.stamp, TypedDateTests.fractional) }
        #expect(error.exitStatus == .dataError)
        #expect("\(error)".hasPrefix("com.example.dates: stamp: \"\(TypedDateTests.given)\": an XML suite keeps dates in whole seconds"))
        // Inside a struct: the key path to it. Through `update` too; nothing is written.
        #expect(throws: PrefsError.invalidValue(domain: "com.example.dates", key: ":session:started", flag: nil,
                                                given: TypedDateTests.given, reason: reason)) {
            try suite.update { try $0.set(.session, Session(user: "ann", started: TypedDateTests.fractional)) }
        }
        #expect(try fixture.fixture.fileSystem.contents(of: path) == before)
        // A whole second is kept, and the file stays XML.
        let whole = Date(timeIntervalSinceReferenceDate: 788_918_645)
        try suite.set(.stamp, whole)
        #expect(try suite[.stamp] == whole)
        #expect(Array(try fixture.fixture.fileSystem.contents(of: path).prefix(5)) == Array("<?xml".utf8))
    }

    @Test func theCommandsStoreStillCreatesXMLAndRefusesTheFractionThere() throws {
        let fixture = try LayerFixture(.memory)
        let store = fixture.store
        try store.update(.suite("app")) { $0["name"] = "x" }
        let path = fixture.root + "/config/app.plist"
        #expect(Array(try fixture.fixture.fileSystem.contents(of: path).prefix(5)) == Array("<?xml".utf8))
        #expect(throws: PrefsError.self) {
            try store.update(.suite("app")) { $0["when"] = .date(PrefDate(secondsSinceReferenceDate: 0.5)) }
        }
        // A dry run fails where the change would.
        #expect(throws: PrefsError.self) {
            _ = try store.preview(try store.target(for: .suite("app"))) { $0["when"] = .date(PrefDate(secondsSinceReferenceDate: 0.5)) }
        }
        #expect(try store.load(.suite("app"))?.contents == ["name": "x"])
    }
}
