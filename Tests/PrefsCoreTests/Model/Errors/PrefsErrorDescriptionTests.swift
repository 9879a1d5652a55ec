import Testing
@testable import PrefsCore

/// A Swift program gets the sentence the command prints after `prefs: ` (CommandTests and the
/// other end-to-end tests check every case's wording through the command).
@Suite struct PrefsErrorDescriptionTests {
    @Test(arguments: [
        (PrefsError.keyNotFound(domain: "com.example.app", key: "retries"), "com.example.app: no key retries"),
        (.conditionFailed(domain: "s", key: "k", found: ["a": 1], expected: "x"), "s: k: is { a = 1; }, not x (--if-equals); nothing changed"),
        (.invalidDocument(domain: "s", key: "k", what: "-json", error: .malformed(source: nil, format: .json, reason: "line 1, column 2: oops")),
         "s: k: -json: JSON: line 1, column 2: oops"),
    ])
    func anErrorReadsAsTheLineTheCommandPrints(error: PrefsError, line: String) {
        #expect("\(error)" == line)
        #expect(error.description == line)
    }
}
