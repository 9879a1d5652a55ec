import Foundation
import Testing
@testable import PrefsCommand

/// The man page's synopsis lines are checked against the command table, not generated from it: they
/// group the options that go together (`[--json [--compact]|--keys ...]`), which the table does not
/// say. ConsistencyTests checks that each verb's synopsis names exactly its options; these check its
/// operands, in the SYNOPSIS and in the verb's headings under COMMANDS: with the options and their
/// values taken out, the forms a verb's lines show are exactly the forms of its usage in the table
/// (`prefs help VERB`; `write DOMAIN KEY [TYPE] VALUE... | DOMAIN PLIST` is two forms).
@Suite struct ManSynopsisTests {
    /// A synopsis, parsed: words, `|`, `...`, and `[...]` groups.
    indirect enum Piece: Equatable {
        case word(String), bar, ellipsis, group([Piece])
    }

    /// A line of roff as the reader sees it: a font macro's arguments joined (with spaces for `.B`
    /// and `.I`, without for the alternating ones), escapes resolved, font changes dropped.
    static func plainText(_ line: String) -> String {
        var text = line
        if line.hasPrefix(".") {
            let name = line.prefix { !$0.isWhitespace }
            var arguments: [String] = [], current = "", quoted = false
            for character in line.dropFirst(name.count) {
                if character == "\"" { quoted.toggle(); continue }
                if character == " " && !quoted {
                    if !current.isEmpty { arguments.append(current) }
                    current = ""
                } else {
                    current.append(character)
                }
            }
            if !current.isEmpty { arguments.append(current) }
            text = arguments.joined(separator: name == ".B" || name == ".I" ? " " : "")
        }
        for (escape, replacement) in [("\\-", "-"), ("\\&", ""), ("\\fR", ""), ("\\fB", ""), ("\\fI", ""), ("\\fP", ""), ("\\e", "\\")] {
            text = text.replacingOccurrences(of: escape, with: replacement)
        }
        return text
    }

    static func pieces(_ text: String) -> [Piece] {
        var tokens: [String] = []
        var word = ""
        func end() {
            if word.hasSuffix("...") && word.count > 3 { tokens += [String(word.dropLast(3)), "..."] } else if !word.isEmpty { tokens.append(word) }
            word = ""
        }
        for character in text {
            if "[]|".contains(character) || character.isWhitespace {
                end()
                if !character.isWhitespace { tokens.append(String(character)) }
            } else {
                word.append(character)
            }
        }
        end()
        var rest = tokens[...]
        return parse(&rest)
    }

    static func parse(_ tokens: inout ArraySlice<String>) -> [Piece] {
        var pieces: [Piece] = []
        while let token = tokens.popFirst() {
            switch token {
            case "[": pieces.append(.group(parse(&tokens)))
            case "]": return pieces
            case "|": pieces.append(.bar)
            case "...": pieces.append(.ellipsis)
            default: pieces.append(.word(token))
            }
        }
        return pieces
    }

    static func isOption(_ word: String) -> Bool { word.hasPrefix("-") && word != "-" && word != "--" }

    static func containsOption(_ pieces: [Piece]) -> Bool {
        pieces.contains { piece in
            switch piece {
            case .word(let word): isOption(word)
            case .group(let inner): containsOption(inner)
            default: false
            }
        }
    }

    /// The pieces without the options: a group that holds one goes whole; an option outside a group
    /// goes with its value (as many pieces as the table's placeholder, then `|` alternatives and a
    /// `...`).
    static func operands(_ pieces: [Piece], values: [String: Int]) -> [Piece] {
        var kept: [Piece] = []
        var index = 0
        func skipAlternativesAndEllipsis() {
            while index + 1 < pieces.count, pieces[index] == .bar, case .word = pieces[index + 1] { index += 2 }
            if index < pieces.count, pieces[index] == .ellipsis { index += 1 }
        }
        while index < pieces.count {
            let piece = pieces[index]
            index += 1
            switch piece {
            case .group(let inner) where containsOption(inner):
                if index < pieces.count, pieces[index] == .ellipsis { index += 1 }
            case .group(let inner):
                kept.append(.group(operands(inner, values: values)))
            case .word(let word) where isOption(word):
                index += values[word] ?? 0
                skipAlternativesAndEllipsis()
            default:
                kept.append(piece)
            }
        }
        // Bars left at either end, or doubled, by what went.
        var cleaned: [Piece] = []
        for piece in kept where !(piece == .bar && (cleaned.isEmpty || cleaned.last == .bar)) { cleaned.append(piece) }
        while cleaned.last == .bar { cleaned.removeLast() }
        return cleaned
    }

    static func render(_ pieces: [Piece]) -> String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .word(let word): text += (text.isEmpty || text.hasSuffix("[") || text.hasSuffix("|") ? "" : " ") + word
            case .bar: text += "|"
            case .ellipsis: text += "..."
            case .group(let inner): text += (text.isEmpty || text.hasSuffix("|") ? "" : " ") + "[" + render(inner) + "]"
            }
        }
        return text
    }

    /// How many pieces the value of each of the verb's options is, by its spellings.
    static func valueSizes(_ verb: VerbSpec) -> [String: Int] {
        var sizes: [String: Int] = [:]
        for option in verb.options + CommandTable.common {
            let size = option.value.map { pieces($0).count } ?? 0
            sizes[option.spelling] = size
            if let short = option.short { sizes["-\(short)"] = size }
        }
        return sizes
    }

    /// A synopsis of `verb` without its options.
    static func form(_ text: String, of verb: VerbSpec) -> String { render(operands(pieces(text), values: valueSizes(verb))) }

    /// The forms of a verb's usage in the table, without options.
    static func tableForms(_ verb: VerbSpec) -> Set<String> {
        Set(verb.verb.operands.components(separatedBy: " | ").map { form($0, of: verb) })
    }

    /// Each verb's SYNOPSIS entries (after `.B prefs VERB`), as text.
    static func synopsisEntries() throws -> [(verb: String, text: String)] {
        let man = try Paths.text("man/prefs.1")
        let synopsis = man.components(separatedBy: ".SH SYNOPSIS\n")[1].components(separatedBy: "\n.SH ")[0]
        return synopsis.components(separatedBy: "\n.br\n").compactMap { entry in
            let lines = entry.split(separator: "\n").map(String.init)
            guard let head = lines.first, head.hasPrefix(".B prefs ") else { return nil }
            return (plainText(head).dropFirst("prefs ".count).description, lines.dropFirst().map(plainText).joined(separator: " "))
        }
    }

    /// The headings of COMMANDS (the `.TP` lines outside any `.RS`) that start with a verb, as text.
    static func commandHeadings() throws -> [(verb: String, text: String)] {
        let man = try Paths.text("man/prefs.1")
        let section = man.components(separatedBy: ".SH COMMANDS\n")[1].components(separatedBy: "\n.SH ")[0]
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var depth = 0
        var headings: [(String, String)] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix(".RS") { depth += 1 }
            if line.hasPrefix(".RE") { depth -= 1 }
            guard depth == 0, line == ".TP", index + 1 < lines.count else { continue }
            let text = plainText(lines[index + 1])
            let verb = String(text.prefix { $0 != " " })
            guard CommandTable.verb(named: verb) != nil else { continue }
            headings.append((verb, String(text.dropFirst(verb.count))))
        }
        return headings
    }

    @Test func synopsisShowsEachVerbsOperandsAsTheTableDoes() throws {
        let entries = try ManSynopsisTests.synopsisEntries()
        for verb in CommandTable.verbs {
            let forms = Set(entries.filter { $0.verb == verb.name }.map { ManSynopsisTests.form($0.text, of: verb) })
            #expect(forms == ManSynopsisTests.tableForms(verb), "SYNOPSIS of \(verb.name)")
        }
    }

    @Test func eachVerbsHeadingsShowItsOperandsAsTheTableDoes() throws {
        let headings = try ManSynopsisTests.commandHeadings()
        for verb in CommandTable.verbs {
            let forms = Set(headings.filter { $0.verb == verb.name }.map { ManSynopsisTests.form($0.text, of: verb) })
            #expect(forms == ManSynopsisTests.tableForms(verb), "COMMANDS heading of \(verb.name)")
        }
    }

    /// The check itself: options and their values go, operands stay as the table writes them.
    @Test func operandsAreWhatRemainsWithoutTheOptions() throws {
        let write = try #require(CommandTable.verb(named: "write"))
        let cases = [("DOMAIN KEY [TYPE] VALUE ... [--exit-code] [--schema FILE|--no-schema]", "DOMAIN KEY [TYPE] VALUE..."),
                     ("[DOMAIN [KEY]] --if-equals VALUE [--dry-run]", "[DOMAIN [KEY]]"), ("DOMAIN --schema FILE|-", "DOMAIN"),
                     ("DOMAIN [DOMAIN ...] [--keys LIST] -- COMMAND [ARG ...]", "DOMAIN [DOMAIN...] -- COMMAND [ARG...]"), ("FILE|-|PLIST", "FILE|-|PLIST")]
        for (text, expected) in cases {
            #expect(ManSynopsisTests.form(text, of: write) == expected, "\(text)")
        }
        #expect(ManSynopsisTests.plainText(#".BR exec " \fIDOMAIN\fR [\fIDOMAIN\fR ...] \-\- \fICOMMAND\fR""#) == "exec DOMAIN [DOMAIN ...] -- COMMAND")
        #expect(ManSynopsisTests.plainText(#".BI "register " DOMAIN " \-\-delete " KEY"#) == "register DOMAIN --delete KEY")
    }
}
