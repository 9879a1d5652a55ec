import Glibc
import PrefsCore

/// `prefs edit DOMAIN` — the suite's stored values open in `$VISUAL` (else `$EDITOR`, else `vi`) as
/// typed JSON (every type kept; a value over 64 KiB shown by its size and SHA-256, and kept as it
/// was unless its line goes: `SummarisedTypedJSON`), in a file of its own (0600, in a new 0700 directory under `$TMPDIR`
/// or /tmp). When the editor exits 0 the file is read back — only a regular file, never through a
/// symlink, at most 256 MiB (`EditedCopy`) — and what changed is stored in one locked write, checked
/// against the suite's schema. A key someone else changed meanwhile is never overwritten: when the
/// edit touched other keys only, they are merged into the current values (and said so); when both
/// touched one key, nothing changes (exit 4). A bad document or value changes nothing (65). On any
/// failure the edited copy is kept, and named; on success or no change its directory goes, with
/// whatever the editor left in it (a backup, a swap file).
enum EditCommand: Command {
    struct Values: CommandValues, FenceOptions {
        var fence: String?
    }

    static let verb = Verb(name: "edit", operands: "DOMAIN", summary: "edit a suite's values in $VISUAL or $EDITOR (typed JSON), checked, no concurrent change lost",
                           operandCount: 1...1, details: HelpText.editDetails)

    static let operandKinds: [WordKind] = [.domain]

    static let options: [Option<Values>] = [.fence]

    /// Both the edit and someone else changed these keys.
    struct Conflict: Error { let keys: [String] }

    static func run(_ values: Values, _ operands: [String], _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: operands[0])
        guard domain != .standardInput else { throw PrefsError.usage("edit: name a suite or a file, not standard input") }
        let before = try context.store.loadMaterialized(domain)?.contents ?? PrefDictionary()
        let document = try SummarisedTypedJSON(before)
        let copy = try EditedCopy(document.bytes, name: domain.displayName, context)
        switch try copy.runEditor(environment: context.environment) {
        case .exited(0): break
        case .exited(let status):
            copy.remove()
            context.printError("edit: the editor exited with status \(status); nothing changed")
            return status == 127 ? .commandNotFound : .cannotExecute
        case .signalled(let signal):
            copy.remove()
            context.printError("edit: the editor was killed by signal \(signal); nothing changed")
            return .cannotExecute
        case .failed(let code):
            copy.remove()
            context.printError("edit: cannot run /bin/sh: \(PrefsError.describe(errno: code)); nothing changed")
            return .cannotExecute
        }
        do {
            let status = try commit(copy, document, before: before, domain: domain, context)
            copy.remove()
            return status
        } catch let conflict as Conflict {
            context.printError("edit: \(domain.displayName): \(conflict.keys.joined(separator: ", ")) changed meanwhile, and the edit changed them too; nothing changed; the edited copy is kept: \(copy.path)")
            return .conditionFailed
        } catch let error as PrefsError {
            context.printError(error.message(hinting: context) + "; the edited copy is kept: \(copy.path)")
            return error.exitStatus
        }
    }

    /// Reads the edited copy back (each summary of a large value it holds replaced by that value)
    /// and stores what the edit changed, in one locked write.
    static func commit(_ copy: EditedCopy, _ document: SummarisedTypedJSON, before: PrefDictionary, domain: Domain,
                       _ context: CommandContext) throws -> ExitStatus {
        let bytes = try copy.read()
        let edited: PrefDictionary
        do {
            guard case .dictionary(let dictionary) = try document.decode(bytes) else {
                throw PrefsError.malformed(source: nil, format: nil, reason: "the document is not a dictionary of keys")
            }
            edited = dictionary
        } catch let error as PrefsError {
            throw error.attributed(to: copy.path)
        }
        let touched = Set(before.changes(to: edited).map(\.key))
        guard !touched.isEmpty else { return .success }
        var merged: [String] = []
        _ = try context.store.change(try context.store.target(for: domain), dryRun: false) { contents in
            let meanwhile = Set(before.changes(to: contents).map(\.key))
            // A key both changed to the same value is no conflict.
            let both = meanwhile.intersection(touched).filter { contents[$0] != edited[$0] }
            guard both.isEmpty else { throw Conflict(keys: both.sorted()) }
            merged = meanwhile.sorted()
            for key in touched { if let value = edited[key] { contents[key] = value } else { _ = contents.removeValue(forKey: key) } }
        }
        if !merged.isEmpty {
            context.printWarning("edit: \(domain.displayName): \(merged.joined(separator: ", ")) changed meanwhile; the edit changed other keys only, and was merged key by key")
        }
        return .success
    }
}

extension EditedCopy {
    /// The copy in a new directory under `$TMPDIR` (or /tmp).
    init(_ bytes: [UInt8], name: String, _ context: CommandContext) throws {
        let base = try context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        try self.init(bytes, name: name, under: base)
    }

    /// `$VISUAL`, else `$EDITOR`, else `vi`, run by the shell (it may hold arguments) on the copy.
    /// The terminal's SIGINT and SIGQUIT are the editor's while it runs (as git has it): prefs and
    /// the shell between them catch them and go on waiting, so what the editor saves after one is
    /// still applied. A caught signal is the default again in the program exec'd, so the editor
    /// starts with them as prefs was started (an ignored one stays ignored).
    func runEditor(environment: Environment) throws -> Spawn.Outcome {
        let editor = try [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let previous = [SIGINT, SIGQUIT].map { ($0, signal($0, SIG_IGN)) }
        defer { for (number, handler) in previous { signal(number, handler) } }
        for (number, handler) in previous where !EditedCopy.isIgnored(handler) { signal(number) { _ in } }
        return Spawn.run(["/bin/sh", "-c", "trap : INT QUIT; " + editor + " \"$@\"", editor, path], environment: [], clearing: [])
    }

    private static func isIgnored(_ handler: __sighandler_t?) -> Bool {
        handler.map { unsafeBitCast($0, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) } ?? false
    }
}
