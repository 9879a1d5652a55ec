import Glibc
import PrefsCore

/// How the `defaults` personality fails, as macOS `defaults` does: its usage on standard output and
/// exit 255, or a message on standard error (through NSLog, with its prefix) and exit 1.
enum DefaultsFailure: Error, Equatable {
    case usage
    case log(String)
    /// Exit 1, everything already said.
    case failed

    init(_ error: DefaultsSyntaxError) {
        switch error {
        case .usage: self = .usage
        case .message(let text): self = .log(text)
        }
    }
}

enum DefaultsMessages {
    /// A line as NSLog writes it: `2026-01-02 03:04:05.678 defaults[PID:TID] MESSAGE` (local time; the
    /// main thread's ID is the PID on Linux), and a newline
    /// unless the message ends with one (many of `defaults`' own start and end with one).
    static func nslog(_ message: String) -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec, parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        _ = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        let milliseconds = String(now.tv_nsec / 1_000_000)
        let stamp = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "." + String(repeating: "0", count: 3 - milliseconds.count) + milliseconds
        let line = "\(stamp) defaults[\(getpid()):\(getpid())] \(message)"
        return Array((message.hasSuffix("\n") ? line : line + "\n").utf8)
    }

    /// How `defaults` names a domain in most messages: the global domain as `Apple Global Domain`.
    static func name(_ domain: Domain) -> String { domain == .global ? "Apple Global Domain" : domain.displayName }

    /// How it names one where it prints the CFPreferences domain itself: the global domain as
    /// `kCFPreferencesAnyApplication` (read's pair message, delete, export).
    static func preferencesName(_ domain: Domain) -> String { domain == .global ? "kCFPreferencesAnyApplication" : domain.displayName }

    /// A failure of prefs's own, in a line `defaults` could have printed.
    static func text(_ error: PrefsError) -> String { error.message }

    /// What `defaults help` prints (and, on a usage error, `defaults` prints before exiting 255).
    static let usage = """
        prefs, as defaults: read and write preferences from the command line.
        Usage:

          defaults [-currentHost | -host <hostname>] <verb> ...

          read                                 every domain's defaults
          read <domain>                        the defaults of <domain>
          read <domain> <key>                  the value of <key> in <domain>
          read-type <domain> <key>             the type of that value
          write <domain> <domain_rep>          replace <domain> with a dictionary
          write <domain> <key> <value>         set <key> in <domain>
          rename <domain> <old_key> <new_key>  move a value to a new key
          delete <domain> [<key>]              remove <key>, or every key of <domain>
          import <domain> <path> | -           merge a plist file (or standard input) into <domain>
          export <domain> <path>               save <domain> to <path> as a binary plist
          export <domain> -                    print <domain> as an XML plist
          domains                              list the domains
          find <word>                          list the entries that contain <word>
          help                                 print this help

        <domain> is <domain_name>, -g or -globalDomain, or a path to a file (its
        '.plist' may be left out).

        <value> is a <value_rep> (a word, or old-style plist text), or one of:
          -string <string>   -data <hex_digits>   -int[eger] <integer>   -float <number>
          -bool[ean] (true | false | yes | no)   -date <date_rep>
          -array <value>...   -array-add <value>...   -dict <key> <value>...   -dict-add <key> <value>...

        """
}
