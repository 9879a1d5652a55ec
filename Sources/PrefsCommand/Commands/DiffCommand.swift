import PrefsCore

/// `prefs diff DOMAIN V1 [V2]` — what changed from the suite as version V1 left it to the suite as
/// V2 left it (default: the newest version), one line per key as a dry run prints it
/// (`+ KEY = NEW`, `- KEY = OLD`, `~ KEY = OLD -> NEW`). Exits 1 for a version not kept.
enum DiffCommand: Command {
    struct Values: CommandValues {}

    static let verb = Verb(name: "diff", operands: "DOMAIN V1 [V2]",
                           summary: "show what changed between two versions of a suite (V2: the newest)", operandCount: 2...3)

    static let operandKinds: [WordKind] = [.domain, .text, .text]

    static let options: [Option<Values>] = []

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        let from = try version(operands[1])
        let to = try operands.count > 2 ? version(operands[2]) : nil
        for change in try context.store.difference(in: domain, from: from, to: to) { context.print(ValueOutput.report(change)) }
        return .success
    }

    /// A version number as typed.
    static func version(_ text: String) throws -> Int64 {
        guard let number = Int64(text), number > 0 else {
            throw PrefsError.usage("\(text): not a version number (the first field of `prefs history`)")
        }
        return number
    }
}
