import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// The library sees values expire as the command does: `SuiteStore` reads and the typed `Prefs`
/// API (cached or not) show the registered default once the deadline passes, with no file changed.
@Suite struct ExpiringValueTests {
    @Test func typedReadsCachedOrNotRevertToTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let store = SuiteStore(fileSystem: LocalFileSystem(), environment: Environment(["XDG_CONFIG_HOME": directory.path, "XDG_DATA_DIRS": directory.file("none")]))
        let plain = Prefs.Suite("com.example.app", store: store)
        let cached = plain.cachingReads()
        var options = WriteOptions()
        let deadline = Expiry.now().secondsSinceReferenceDate + 1
        options.deadline = PrefDate(secondsSinceReferenceDate: deadline)
        let request = try WriteRequest.parse(["retries", "-int", "9"], domain: "com.example.app")
        _ = try store.write(request, to: .suite("com.example.app"), options: options)
        // Stored to the second in XML, rounded up: never earlier than asked.
        let stored = try #require(try store.deadlines(in: .suite("com.example.app")).first)
        #expect(stored.key == "retries" && stored.deadline.secondsSinceReferenceDate >= deadline && stored.deadline.secondsSinceReferenceDate < deadline + 1)
        var sawValue = false
        while true {
            let issued = Expiry.now()
            let (a, b) = (try plain[.retries], try cached[.retries])
            if a == 9 || b == 9 {
                #expect(issued < stored.deadline, "a value read \(issued.secondsSinceReferenceDate - stored.deadline.secondsSinceReferenceDate) s past its deadline")
                sawValue = true
            }
            if a == 3 && b == 3 { break }
            guard issued.secondsSinceReferenceDate < deadline + 60 else {
                Issue.record("still \(a), \(b) a minute after the deadline")
                break
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(sawValue || Expiry.now() > stored.deadline)
        #expect(try store.value(at: PrefKeyPath(["retries"]), in: .suite("com.example.app")) == nil)
        #expect(try store.load(.suite("com.example.app"))?.contents[Expiry.key] == nil)
    }
}
