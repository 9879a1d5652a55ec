import Foundation
import Testing

/// The man page's example commands are what a reader copies into a shell: a command that goes on
/// to the next line ends with a backslash (`\e` in roff), so no line of an example starts with an
/// option, a pipe or an operator that belongs to the command above it.
@Suite struct ManPageExampleTests {
    @Test func aCommandSplitAcrossLinesEndsWithABackslash() throws {
        let man = try Paths.text("man/prefs.1")
        var inExample = false, inCommand = false, last = ""
        for line in man.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".EX") || line.hasPrefix(".nf") { inExample = true; inCommand = false; last = ""; continue }
            if line.hasPrefix(".EE") || line.hasPrefix(".fi") { inExample = false; continue }
            guard inExample, !line.hasPrefix(".") else { continue }
            let start = line.drop { $0 == " " }
            let continues = ["\\-", "|", "&&", "||"].contains { start.hasPrefix($0) }
            if continues && inCommand {
                #expect(last.hasSuffix("\\e"), "man page example split without a backslash:\n\(last)\n\(line)")
            }
            if !last.hasSuffix("\\e") { inCommand = line.hasPrefix("prefs ") }
            last = line
        }
    }
}
