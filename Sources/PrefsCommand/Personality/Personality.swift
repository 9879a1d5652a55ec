import PrefsCore

/// Who prefs is: itself, or — run under the name `defaults` (`ln -s prefs defaults`) — macOS
/// `defaults`, as far as a script can observe (`DefaultsTool`).
enum Personality: Equatable, Sendable {
    case prefs
    case defaults

    /// From the name the program was run by (argv[0]): its last path component.
    init(programName: [UInt8]) {
        // The last path component, found by hand (see main.swift).
        var start = programName.count
        while start > 0, programName[start - 1] != UInt8(ascii: "/") { start -= 1 }
        self = programName[start...].elementsEqual("defaults".utf8) ? .defaults : .prefs
    }
}

extension CommandLineTool {
    /// The exit status of a command line (argv after the program name) run by `personality`.
    static func main(raw arguments: [[UInt8]], context: CommandContext, personality: Personality) -> Int32 {
        guard personality == .defaults else { return run(raw: arguments, context: context).rawValue }
        var decoded: [String] = []
        for (i, bytes) in arguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                context.writeError(DefaultsMessages.nslog("argument \(i + 1) is not valid UTF-8: \"\(ByteText.escaped(bytes))\""))
                return 1
            }
            decoded.append(text)
        }
        return DefaultsTool.run(decoded, context: context)
    }
}
