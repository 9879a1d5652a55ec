import PrefsCore

/// `prefs export DOMAIN PATH|- [--format FORMAT] [--keys LIST] [--effective [--defaults FILE]…]` —
/// decode the domain (a suite's stored values, or with `--effective` every layer merged; or a file
/// in any format, or standard input), keep only `--keys` when given, and write it in FORMAT
/// (default xml) to PATH, atomically, or to standard output.
enum ExportCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        let destination = invocation.operands[1]
        let format = invocation.value("format").flatMap(PlistFormat.init(rawValue:)) ?? .xml
        var value: PrefValue
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
            guard let suite = try context.store.loadMaterialized(domain) else { throw PrefsError.suiteNotFound(domain: domain.displayName) }
            value = .dictionary(suite.contents)
        case .file, .standardInput:
            let source = try domain.path(in: context.environment) ?? "-"
            do {
                value = try PropertyList.decode(try context.readInput(source)).value
            } catch let error as PrefsError {
                throw error.attributed(to: source == "-" ? "standard input" : source)
            }
        }
        if invocation.has("keys") { value = try selecting(try KeyArguments.list(invocation, "keys"), from: value, domain: domain) }
        let bytes = try PropertyList.encode(value, as: format)
        if destination == "-" {
            context.writeOutput(bytes)
        } else {
            try context.fileSystem.writeFile(destination, bytes, newFileMode: 0o666, lockTimeout: try context.environment.lockTimeout())
        }
        return .success
    }

    /// `--keys`: only the values at these keys, each at its place; a key that is not there is 1.
    static func selecting(_ keys: [KeyPath], from value: PrefValue, domain: Domain) throws -> PrefValue {
        guard case .dictionary(let root) = value else {
            throw PrefsError.typeMismatch(domain: domain.displayName, key: "", reason: "--keys needs a dictionary, and the root is \(value.typeNameWithArticle)")
        }
        var selected = PrefDictionary()
        for path in keys {
            try KeyPathError.attributing(domain: domain.displayName, path: path) {
                guard let found = try root.value(at: path) else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
                try selected.setValue(found, at: path)
            }
        }
        return .dictionary(selected)
    }
}
