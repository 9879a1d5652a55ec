import PrefsCore

/// `prefs export DOMAIN PATH|- [--format FORMAT] [--effective [--defaults FILE]…]` — decode the
/// domain (a suite's stored values, or with `--effective` every layer merged; or a file in any
/// format, or standard input) and write it in FORMAT (default xml) to PATH, atomically, or to
/// standard output.
enum ExportCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let destination = invocation.operands[1]
        let format = invocation.value("format").flatMap(PlistFormat.init(rawValue:)) ?? .xml
        let value: PrefValue
        guard invocation.has("effective") || !invocation.has("defaults") else {
            throw PrefsError.usage("export: --defaults needs --effective")
        }
        let layers = try SuiteReading.layers(of: domain, invocation, context)
        switch domain {
        case .suite, .global:
            guard !invocation.has("effective") else {
                value = .dictionary(try layers.resolved().values)
                break
            }
            guard let suite = try context.store.load(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
            value = .dictionary(suite.contents)
        case .file, .standardInput:
            let source = try domain.path(in: context.environment) ?? "-"
            do {
                value = try PropertyList.decode(try context.readInput(source)).value
            } catch let error as PrefsError {
                throw error.attributed(to: source == "-" ? "standard input" : source)
            }
        }
        let bytes = try PropertyList.encode(value, as: format)
        if destination == "-" {
            context.writeOutput(bytes)
        } else {
            try context.fileSystem.writeFile(destination, bytes, newFileMode: 0o666, lockTimeout: context.store.lockTimeout)
        }
        return .success
    }
}
