import PrefsCore

/// `prefs lint FILE…` — like `plutil -lint`: `FILE: OK` on standard output for each file `read`
/// and `export` both accept (so its root is a dictionary, as `read` needs), one error line on
/// standard error for each other one. Exits 0 when all are good, otherwise with the status of the
/// first file that failed (65 malformed, 66 missing, 74 unreadable).
enum LintCommand: Command {
    struct Values: CommandValues {}

    static let verb = Verb(name: "lint", operands: "FILE...", summary: "check property-list and JSON files, like plutil -lint", operandCount: 1...Int.max)

    static let operandKinds: [WordKind] = [.file]

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        var status = ExitStatus.success
        let input = DocumentInput(fileSystem: context.fileSystem)
        for path in operands {
            let name = DocumentInput.name(of: path)
            do {
                // What read and export both accept: JSON's null, valid JSON, has no property-list
                // value, and read takes only a dictionary of keys.
                let (value, format) = try PropertyList.decode(try input.bytes(from: path))
                guard case .dictionary = value else {
                    throw PrefsError.malformed(source: nil, format: format, reason: "the root is \(value.typeNameWithArticle), not a dictionary")
                }
                context.print("\(name): OK")
            } catch let error as PrefsError {
                context.printError(error.attributed(to: name).message)
                if status == .success { status = error.exitStatus }
            }
        }
        return status
    }
}
