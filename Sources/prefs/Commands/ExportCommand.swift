import PrefsCore

/// `prefs export DOMAIN PATH|- [--format FORMAT]` — decode the domain (a suite, or a file in any
/// format) and write it in FORMAT (default xml) to PATH, atomically, or to standard output.
enum ExportCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let destination = invocation.operands[1]
        let format = invocation.value("format").flatMap(PlistFormat.init(rawValue:)) ?? .xml
        let source = try domain.path(in: context.environment) ?? "-"
        let value: PrefValue
        do {
            value = try PropertyList.decode(try FileAccess.read(source)).value
        } catch let error as PrefsError {
            throw error.attributed(to: domain.displayName)
        }
        let bytes = try PropertyList.encode(value, as: format)
        if destination == "-" {
            context.writeOutput(bytes)
        } else {
            try FileAccess.replace(destination, with: bytes, newFileMode: 0o666)
        }
        return .success
    }
}
