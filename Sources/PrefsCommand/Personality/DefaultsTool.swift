import Glibc
import PrefsCore

/// The `defaults` personality: prefs run under the name `defaults` (a symlink) does what macOS
/// `defaults` does, as far as a script can observe — its command line
/// (`defaults [-currentHost | -host NAME] VERB [DOMAIN] …`, verbs in any case, `remove` for
/// `delete`), its output (stored values only, in Foundation's description text), its messages
/// (through NSLog, on standard error) and its exit statuses (1, and 255 after the usage) — over the
/// same suites and the same PrefsCore operations as prefs.
enum DefaultsTool {
    static func run(_ arguments: [String], context: CommandContext) -> Int32 {
        var status: Int32
        do {
            try dispatch(arguments, context)
            status = 0
        } catch let failure as DefaultsFailure {
            switch failure {
            case .usage:
                context.writeOutput(Array(DefaultsMessages.usage.utf8))
                status = 255
            case .log(let message):
                context.writeError(DefaultsMessages.nslog(message))
                status = 1
            case .failed:
                status = 1
            }
        } catch let error as PrefsError {
            context.writeError(DefaultsMessages.nslog(error.message))
            status = 1
        } catch {
            context.writeError(DefaultsMessages.nslog("internal error: \(error)"))
            status = 1
        }
        if let failure = context.outputFailure(), failure != EPIPE, status == 0 {
            context.writeError(DefaultsMessages.nslog(PrefsError.outputFailed(errno: failure).message))
            status = 1
        }
        return status
    }

    static func dispatch(_ arguments: [String], _ context: CommandContext) throws {
        if arguments == ["printHostIdentifier"] {
            context.print(try HostOption.current.id(context.store))
            return
        }
        var rest = arguments[...]
        // The store prefs would use ($PREFS_STORE, else files): defaults takes no --store.
        var context = try context.selecting(store: nil)
        if rest.first == "-currentHost" || rest.first == "-host" {
            var host: HostOption?
            guard (try? HostOption.take(&rest, into: &host)) == true, let host else { throw DefaultsFailure.usage }
            context.store = try host.scope(context.store)
        }
        guard let verb = rest.popFirst()?.uppercased() else { throw DefaultsFailure.usage }
        switch verb {
        case "FIND":
            guard let word = rest.first else { throw DefaultsFailure.usage }
            try DefaultsVerbs.find(word, context)
        case "HELP":
            context.writeOutput(Array(DefaultsMessages.usage.utf8))
        case "DOMAINS":
            try DefaultsVerbs.domains(context)
        case "READ" where rest.isEmpty:
            try DefaultsVerbs.readAll(context)
        default:
            let domain = try DefaultsTool.domain(&rest)
            switch verb {
            case "READ": try DefaultsVerbs.read(domain, rest, context)
            case "READ-TYPE": try DefaultsVerbs.readType(domain, rest, context)
            case "WRITE": try DefaultsVerbs.write(domain, rest, context)
            case "RENAME": try DefaultsVerbs.rename(domain, rest, context)
            case "DELETE", "REMOVE", "DELETE-ALL": try DefaultsVerbs.delete(domain, rest, context)
            case "IMPORT": try DefaultsVerbs.importPlist(domain, rest, context)
            case "EXPORT": try DefaultsVerbs.export(domain, rest, context)
            default: throw DefaultsFailure.usage
            }
        }
    }

    /// The domain: `-g`, `-globalDomain`, `NSGlobalDomain`, `Apple Global Domain` (and
    /// `.GlobalPreferences`), a path starting with `/` (or `~/`), else a domain name — also one
    /// ending in `.plist`, as CFPreferences takes it. `-app NAME` names no application on Linux.
    static func domain(_ rest: inout ArraySlice<String>) throws -> Domain {
        guard let word = rest.popFirst() else { throw DefaultsFailure.usage }
        guard word == "-app" else { return try Domain(argument: word, plistNamesAreSuites: true) }
        guard let name = rest.popFirst() else { throw DefaultsFailure.usage }
        throw DefaultsFailure.log("Couldn't find an application named \"\(name)\"; defaults unchanged "
                                  + "(there are no application bundles on Linux: name the domain instead)")
    }
}
