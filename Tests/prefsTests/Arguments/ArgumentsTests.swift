import Testing
@testable import PrefsCore
@testable import PrefsCommand

@Suite struct ArgumentsTests {
    @Test(arguments: [
        (["--help"], Invocation(action: .help)),
        (["-h"], Invocation(action: .help)),
        (["--version"], Invocation(action: .version)),
        (["lint", "a.plist", "-"], Invocation(action: .verb("lint"), operands: ["a.plist", "-"])),
        (["lint", "--help"], Invocation(action: .verb("lint"), options: ["help": [""]])),
        (["export", "d", "-", "--format", "json"], Invocation(action: .verb("export"), options: ["format": ["json"]], operands: ["d", "-"])),
        (["export", "--format=binary", "d", "out"], Invocation(action: .verb("export"), options: ["format": ["binary"]], operands: ["d", "out"])),
        (["export", "d", "out", "--format", "xml", "--format", "openstep"], Invocation(action: .verb("export"), options: ["format": ["xml", "openstep"]], operands: ["d", "out"])),
        (["export", "--", "--odd-name.plist", "-"], Invocation(action: .verb("export"), operands: ["--odd-name.plist", "-"])),
        (["export", "-g", "-5"], Invocation(action: .verb("export"), operands: ["-g", "-5"])),
        (["domains", "-0"], Invocation(action: .verb("domains"), options: ["null": [""]])),
        (["read", "s", "-0", "--keys"], Invocation(action: .verb("read"), options: ["null": [""], "keys": [""]], operands: ["s"])),
        (["find", "-0", "w"], Invocation(action: .verb("find"), options: ["null": [""]], operands: ["w"])),
        // After --, and for the verbs without the short spelling, -0 is an operand (a KEY, a value).
        (["read", "s", "--", "-0"], Invocation(action: .verb("read"), operands: ["s", "-0"])),
        (["find", "--", "-0"], Invocation(action: .verb("find"), operands: ["-0"])),
        (["delete", "s", "-0"], Invocation(action: .verb("delete"), operands: ["s", "-0"])),
        (["write", "s", "k", "-int", "-0"], Invocation(action: .verb("write"), operands: ["s", "k", "-int", "-0"])),
        (["read", "s", "-00"], Invocation(action: .verb("read"), operands: ["s", "-00"])),
        (["help"], Invocation(action: .verb("help"))),
        ([], Invocation(action: .usage)),
        (["export", "a"], Invocation(action: .verb("export"), operands: ["a"])),
        (["help", "lint"], Invocation(action: .verb("help"), operands: ["lint"])),
    ] as [([String], Invocation)])
    func parses(arguments: [String], invocation: Invocation) throws {
        #expect(try Arguments.parse(arguments) == invocation)
    }

    @Test(arguments: [
        (["frobnicate"], "unknown verb 'frobnicate' (see prefs --help)"),
        (["--frob"], "unknown option '--frob' (see prefs --help)"),
        (["-x"], "unknown option '-x' (see prefs --help)"),
        (["lint"], "usage: prefs lint FILE..."),
        (["lint", "--format", "xml", "f"], "lint: unknown option '--format' (see prefs help lint)"),
        (["export", "a", "b", "c"], "export: unexpected argument 'c' (usage: prefs export DOMAIN [PATH|-])"),
        (["export", "a", "b", "--format"], "export: --format needs a value (FORMAT)"),
        (["export", "a", "b", "--format", "yaml"], "export: --format must be one of binary, xml, openstep, json, typed-json, sh, env, github, not 'yaml'"),
        (["export", "a", "b", "--help=yes"], "export: --help takes no value"),
        (["help", "a", "b"], "help: unexpected argument 'b' (usage: prefs help [VERB])"),
        (["domains", "-0", "x", "y"], "domains: unexpected argument 'y' (usage: prefs domains [GLOB])"),
    ] as [([String], String)])
    func refuses(arguments: [String], message: String) {
        #expect(throws: PrefsError.usage(message)) { try Arguments.parse(arguments) }
    }

    /// Every option of every verb in the table parses in both spellings.
    @Test func everyOptionSpellingParses() throws {
        for verb in CommandTable.verbs {
            for option in verb.options + CommandTable.common {
                let operands = Array(["x.plist", "y.plist", "z.plist"].prefix(verb.verb.operandCount.lowerBound))
                let value = option.choices.first ?? (option.value == nil ? nil : "v")
                var separate = [verb.name, "--" + option.name]
                if let value { separate.append(value) }
                let attached = [verb.name, "--" + option.name + (value.map { "=" + $0 } ?? "")]
                #expect(try Arguments.parse(separate + operands).options[option.name]?.last == (value ?? ""), "\(separate)")
                #expect(try Arguments.parse(attached + operands).options[option.name]?.last == (value ?? ""), "\(attached)")
                if let short = option.short {
                    let spelled = [verb.name, "-\(short)"] + (value.map { [$0] } ?? [])
                    #expect(try Arguments.parse(spelled + operands).options[option.name]?.last == (value ?? ""), "\(spelled)")
                }
            }
        }
    }
}
