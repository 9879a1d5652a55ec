import Foundation
import Testing
@testable import PrefsCore

/// Run as `defaults`, text beyond ASCII inside a container prints as macOS prints it, each UTF-16
/// unit as `\\Uxxxx` with two backslashes (`"\\U9009\\U62e9" = "^j";`), in `read` and `find`; and
/// the line a script copies from that output back into `defaults write … -dict-add` between double
/// quotes (the shell leaves `\U9009\U62e9`) writes the same text, as old-style text is read on macOS.
@Suite(.runsProcesses) struct DefaultsEscapeTests {
    static let select = "\u{9009}\u{62e9}"

    @Test func readAndFindPrintTwoBackslashes() async throws {
        let mac = try DefaultsPersonalityTests.Mac()
        try await mac.sandbox.prefs("write", "-g", "NSUserKeyEquivalents", "-dict", Self.select, "^j", "Caf\u{e9}", "@\u{21a9}")
        let read = try await mac.run(["read", "-g", "NSUserKeyEquivalents"])
        #expect(read.status == 0)
        #expect(read.outputText == #"{\#n    "Caf\\U00e9" = "@\\U21a9";\#n    "\\U9009\\U62e9" = "^j";\#n}\#n"#)
        let find = try await mac.run(["find", "\u{9009}"])
        #expect(find.status == 0)
        #expect(find.outputText == #"Found 1 keys in domain 'Apple Global Domain': {\#n    NSUserKeyEquivalents =     {\#n        "Caf\\U00e9" = "@\\U21a9";\#n        "\\U9009\\U62e9" = "^j";\#n    };\#n}\#n"#)
    }

    /// The NSUserKeyEquivalents workflow: a line of `defaults read`, pasted between double quotes,
    /// writes the text it shows, and reads back as the same line.
    @Test func aPastedLineWritesTheTextBack() async throws {
        let mac = try DefaultsPersonalityTests.Mac()
        let line = #"defaults write -g NSUserKeyEquivalents -dict-add "\\U9009\\U62e9" "^j""#
        let written = try await runProcess("/bin/sh", ["-c", line], environment: mac.sandbox.environment.merging(["PATH": mac.sandbox.directory.path + ":/usr/bin:/bin"]) { $1 })
        #expect(written.status == 0, "\(written.error)")
        #expect(try await mac.sandbox.prefs("read", "-g", "NSUserKeyEquivalents", "--json", "--stored").outputText.contains("\"\(Self.select)\""))
        let read = try await mac.run(["read", "-g", "NSUserKeyEquivalents"])
        #expect(read.outputText == #"{\#n    "\\U9009\\U62e9" = "^j";\#n}\#n"#)
        // An untyped value is old-style text too; `-string` keeps the backslashes as typed.
        #expect(try await mac.run(["write", "app", "title", #"\U9009\U62e9"#]).status == 0)
        #expect(try await mac.run(["write", "app", "literal", "-string", #"\U9009"#]).status == 0)
        #expect(try await mac.sandbox.prefs("read", "app", "title").outputText == Self.select + "\n")
        #expect(try await mac.sandbox.prefs("read", "app", "literal").outputText == #"\U9009"# + "\n")
    }
}
