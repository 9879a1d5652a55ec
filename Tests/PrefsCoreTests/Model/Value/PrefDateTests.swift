import Foundation
import Testing
@testable import PrefsCore
import PrefsTestSupport

@Suite struct PrefDateTests {
    @Test(arguments: [
        ("2001-01-01T00:00:00Z", 0.0),
        ("2026-01-02T03:04:05Z", 789_015_845.0),
        ("1970-01-01T00:00:00Z", -978_307_200.0),
        ("0001-01-01T00:00:00Z", -63_113_904_000.0),
        ("9999-12-31T23:59:59Z", 252_423_993_599.0),
        ("2000-02-29T12:00:00Z", -26_481_600.0),
        ("1900-03-01T00:00:00Z", -3_182_198_400.0),
    ])
    func calendarConversions(text: String, seconds: Double) throws {
        let date = try #require(PrefDate(iso8601: text))
        #expect(date.secondsSinceReferenceDate == seconds)
        #expect(date.iso8601() == text)
    }

    @Test func fractionsAreKeptExactly() throws {
        let date = PrefDate(secondsSinceReferenceDate: -100.25)
        #expect(date.iso8601() == "2000-12-31T23:58:19.75Z")
        #expect(PrefDate(iso8601: "2000-12-31T23:58:19.75Z") == date)
        #expect(PrefDate(secondsSinceReferenceDate: 1e-5).iso8601() == "2001-01-01T00:00:00.00001Z")
        #expect(date.iso8601(wholeSeconds: true) == "2000-12-31T23:58:19Z")
        #expect(date.truncatedToSecond.secondsSinceReferenceDate == -101)
    }

    /// Formatting then parsing gives back the same Double, for many random instants.
    @Test func iso8601RoundTripsEveryBit() throws {
        var generator = SeededGenerator(seed: TestSeed.run)
        for _ in 0..<5000 {
            let seconds: Double
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: seconds = Double.random(in: PrefDate.earliestSeconds..<PrefDate.endSeconds, using: &generator)
            case 1: seconds = Double(Int64.random(in: -2_000_000_000...2_000_000_000, using: &generator)) + Double.random(in: 0..<1, using: &generator)
            default: seconds = Double.random(in: -1...1, using: &generator) * pow(10, Double.random(in: -12...2, using: &generator))
            }
            let date = PrefDate(secondsSinceReferenceDate: seconds)
            let text = date.iso8601()
            let parsed = try #require(PrefDate(iso8601: text), "\(text), \(TestSeed.reproduce())")
            #expect(parsed.secondsSinceReferenceDate.bitPattern == seconds.bitPattern, "\(seconds) → \(text), \(TestSeed.reproduce())")
        }
    }

    @Test(arguments: [
        ("2026-01-02", "2026-01-02T00:00:00Z"),
        ("2026-01-02T03:04Z", "2026-01-02T03:04:00Z"),
        ("2026-01-02 03:04:05 +0000", "2026-01-02T03:04:05Z"),
        ("2026-01-02 03:04:05 +0130", "2026-01-02T01:34:05Z"),
        ("2026-01-02T03:04:05-05:00", "2026-01-02T08:04:05Z"),
        ("2026-01-02T03:04:05.500+01", "2026-01-02T02:04:05.5Z"),
        ("2026-01-02t03:04:05z", "2026-01-02T03:04:05Z"),
    ])
    func acceptedSpellings(text: String, canonical: String) throws {
        #expect(try #require(PrefDate(iso8601: text)).iso8601() == canonical)
    }

    @Test(arguments: [
        "", "2026", "2026-1-2", "2026-13-01", "2026-02-30", "2026-01-02T03:04:05", "2026-01-02T24:00:00Z",
        "2026-01-02T03:60:00Z", "2026-01-02T03:04:05.Z", "2026-01-02T03:04:05Zjunk", "0000-01-01", "10000-01-01",
        "2026-01-02T03:04:05+2400", "2026-01-02X03:04:05Z", "0001-01-01T00:00:00+01:00",
    ])
    func refusedSpellings(text: String) {
        #expect(PrefDate(iso8601: text) == nil)
    }

    @Test func rangeIsYearsOneToNineThousandNineHundredNinetyNine() {
        #expect(PrefDate(secondsSinceReferenceDate: PrefDate.earliestSeconds).isInSupportedRange)
        #expect(!PrefDate(secondsSinceReferenceDate: PrefDate.earliestSeconds - 0.001).isInSupportedRange)
        #expect(PrefDate(secondsSinceReferenceDate: PrefDate.endSeconds - 0.001).isInSupportedRange)
        #expect(!PrefDate(secondsSinceReferenceDate: PrefDate.endSeconds).isInSupportedRange)
        #expect(!PrefDate(secondsSinceReferenceDate: .nan).isInSupportedRange)
        #expect(!PrefDate(secondsSinceReferenceDate: .infinity).isInSupportedRange)
    }

    /// Foundation is an oracle for the calendar arithmetic from 1583 on. Before the Gregorian reform
    /// ICU switches to the Julian calendar, while property lists (CoreFoundation's parser, CPython's
    /// datetime) and ISO 8601 use the proleptic Gregorian calendar, as prefs does; the expected values
    /// above for early years come from CPython.
    @Test func agreesWithFoundationSinceTheGregorianReform() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let reform = Int64(PrefDate.seconds(year: 1583, month: 1, day: 1))
        var generator = SeededGenerator(seed: TestSeed.run)
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: reform..<Int64(PrefDate.endSeconds), using: &generator))
            let ours = PrefDate(secondsSinceReferenceDate: seconds).iso8601()
            let theirs = formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
            #expect(ours == theirs, "\(seconds): \(TestSeed.reproduce())")
        }
    }
}
