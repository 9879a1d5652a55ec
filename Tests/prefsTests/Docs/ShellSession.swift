import Foundation
import Testing
@testable import PrefsCore

/// A shell the completions are written for, driven as a person would drive it: interactively, in a
/// pseudo-terminal (zsh's zpty module), with the completion file loaded. Each input is typed, the
/// shell completes it with its own key, and the line left in the editor is recorded, with what the
/// completion offered: bash's COMPREPLY (quoted for the command line, as readline inserts it),
/// zsh's compadd matches and fish's candidates (both unquoted; the shell quotes them).
enum CompletionShell: String, CaseIterable, CustomStringConvertible, Sendable {
    case bash, zsh, fish

    var description: String { rawValue }

    /// What to type after an input's text.
    enum Key { case single, all }

    /// The key that completes: `.single` is TAB (one match is inserted, with its closing quote and
    /// a space); `.all` inserts every match (bash's insert-completions, zsh's insert=all). fish
    /// has no such command, only `.single`.
    func keys(_ key: Key) -> String {
        switch (self, key) {
        case (.bash, .all): "\u{1b}*"
        case (.zsh, .all): "\u{0f}"  // ^O, bound below
        default: "\t"
        }
    }
}

/// What one typed input gave: what the completion offered (one entry per name, see
/// `CompletionShell`) and the line the shell's editor held afterwards.
struct CompletionResult {
    var offers: [String] = []
    var line = ""
}

extension CompletionShell {
    /// The setup the shell runs before its first prompt: load the completion, record what it
    /// offers, bind ^T to write the line and clear it, and show a prompt the driver waits for.
    func setup(completion: String, records: String) -> String {
        switch self {
        case .bash: #"""
            source '\#(completion)'
            _prefs_record() { _prefs "$@"; printf '%s\0' add "${#COMPREPLY[@]}" "${COMPREPLY[@]}" >> '\#(records)'; }
            complete -F _prefs_record prefs
            _prefs_dump() { printf '%s\0' line "$READLINE_LINE" >> '\#(records)'; READLINE_LINE= READLINE_POINT=0; }
            bind -x '"\C-t": _prefs_dump'
            PS1='::prefs-ready::' PS2=
            """#
        case .zsh: #"""
            fpath=('\#(completion)' $fpath)
            autoload -U compinit && compinit -u -d '\#(records).dump'
            compadd() {
                if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
                local -a found
                builtin compadd -O found "$@"
                print -rn -- add$'\0'$#found$'\0'${(pj:\0:)found}${found:+$'\0'} >> '\#(records)'
                builtin compadd "$@"
            }
            _prefs_insert_all() { compstate[insert]=all }
            _prefs_complete_all() { comppostfuncs=(_prefs_insert_all); zle complete-word }
            _prefs_dump() { print -rn -- line$'\0'$BUFFER$'\0' >> '\#(records)'; BUFFER= }
            zle -N _prefs_complete_all; zle -N _prefs_dump
            bindkey '^I' complete-word; bindkey '^O' _prefs_complete_all; bindkey '^T' _prefs_dump
            PROMPT='::prefs-ready::' RPROMPT= PS2=
            """#
        case .fish: #"""
            function fish_prompt; printf '::prefs-ready::'; end
            function fish_right_prompt; end
            function fish_greeting; end
            source '\#(completion)'
            function _prefs_offers
                set -l offers (complete --escape -C (commandline -c) | string replace -r '\t.*$' '')
                printf '%s\0' add (count $offers) >> '\#(records)'
                for offer in $offers; printf '%s\0' (string unescape -- $offer | string collect -N) >> '\#(records)'; end
            end
            function _prefs_dump; printf '%s\0' line (commandline | string collect -N) >> '\#(records)'; commandline ''; end
            bind \cy _prefs_offers; bind \ct _prefs_dump
            """#
        }
    }

    /// The interactive shell, with `setup` run before its first prompt.
    func command(setup: String, directory: String) throws -> [String] {
        switch self {
        case .bash: [try requireProgram("bash", install: "apt-get install bash"), "--noprofile", "--rcfile", setup, "-i"]
        case .zsh: ["/usr/bin/env", "ZDOTDIR=" + directory, try requireProgram("zsh", install: "apt-get install zsh"), "-d", "-i"]
        case .fish: [try requireProgram("fish", install: "apt-get install fish"), "--no-config", "-i", "-C", "source '\(setup)'"]
        }
    }

    /// Types each input, then the completion key, then ^T (fish: first ^Y, to record the
    /// candidates), in one interactive session in `directory`; at most 60 seconds.
    func complete(_ inputs: [(text: String, key: Key)], in sandbox: ProcessSandbox, directory: String) async throws -> [CompletionResult] {
        let session = try TemporaryDirectory()
        let records = session.file("records")
        let completion = Fixtures.packageRoot + "/completions/prefs." + rawValue
        var loaded = completion
        if self == .zsh {
            try FileManager.default.createDirectory(atPath: session.file("functions"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: completion, toPath: session.file("functions/_prefs"))
            loaded = session.file("functions")
        }
        let setup = try session.write(self == .zsh ? ".zshrc" : "setup", self.setup(completion: loaded, records: records))
        let typed = inputs.map { $0.text + (self == .fish ? "\u{19}" : "") + keys($0.key) + "\u{14}" }
        let inputFile = try session.write("inputs", Array(typed.map { $0 + "\0" }.joined().utf8))
        let driver = try session.write("drive.zsh", CompletionShell.driver)
        let zsh = try requireProgram("zsh", install: "apt-get install zsh")
        let run = try await runProcess("/usr/bin/timeout", ["-k", "5", "60", zsh, "-f", driver, directory, inputFile]
                                    + (try command(setup: setup, directory: session.path)), environment: CompletionShell.environment(sandbox))
        guard run.status == 0 else { throw TestFailure("\(self) session failed (\(run.status)): \(run.outputText) \(run.error)") }
        let results = try parse(records: Fixtures.bytes(records))
        guard results.count == inputs.count else {
            throw TestFailure("\(self) recorded \(results.count) lines for \(inputs.count) inputs: \(results.map(\.line))")
        }
        return results
    }

    /// The sandbox's environment, with a terminal and a UTF-8 locale.
    static func environment(_ sandbox: ProcessSandbox) -> [String: String] {
        sandbox.environment.merging(["TERM": "xterm", "LANG": "C.UTF-8"]) { _, new in new }
    }

    /// The records: `add COUNT NAME…` for each batch of offers, `line TEXT` after each input (fish's
    /// `string collect -N` adds a newline to each text).
    func parse(records bytes: [UInt8]) throws -> [CompletionResult] {
        var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { field in
            let text = String(decoding: field, as: UTF8.self)
            return self == .fish && text.hasSuffix("\n") ? String(text.dropLast()) : text
        }[...]
        var results: [CompletionResult] = []
        var current = CompletionResult()
        while let tag = fields.popFirst(), !(tag.isEmpty && fields.isEmpty) {
            switch tag {
            case "add":
                guard let count = fields.popFirst().flatMap(Int.init), fields.count >= count else { throw TestFailure("bad records") }
                current.offers += fields.prefix(count)
                fields = fields.dropFirst(count)
            case "line":
                current.line = fields.popFirst() ?? ""
                results.append(current)
                current = CompletionResult()
            default:
                throw TestFailure("bad record \(tag)")
            }
        }
        return results
    }

    /// Runs the command (the remaining arguments) in a pseudo-terminal in the directory given,
    /// waits for the prompt, types the NUL-separated inputs, then exit, and waits for the end.
    static let driver = #"""
        zmodload zsh/zpty
        cd "$1" || exit 2
        inputs=$2
        shift 2
        zpty shell "${(q)@}"
        zpty -r -m shell line '*::prefs-ready::*' || exit 3
        for input in "${(0)$(<$inputs)}"; do [[ -n $input ]] && zpty -w -n shell "$input"; done
        zpty -w shell exit
        while zpty -r shell line; do :; done
        zpty -d shell
        """#

    /// Each text quoted as the shell itself quotes a word: bash `printf %q`, zsh `${(q)…}`, fish
    /// `string escape`.
    func quoted(_ texts: [String], in sandbox: ProcessSandbox) async throws -> [String] {
        let scratch = try TemporaryDirectory()
        let input = try scratch.write("texts", Array(texts.map { $0 + "\0" }.joined().utf8))
        let arguments: [String]
        switch self {
        case .bash:
            arguments = [try requireProgram("bash", install: "apt-get install bash"), "--norc", "-c",
                         #"while IFS= read -r -d '' text; do printf '%q\0' "$text"; done < "$0""#, input]
        case .zsh:
            arguments = [try requireProgram("zsh", install: "apt-get install zsh"), "-f", "-c",
                         #"while IFS= read -r -d '' text; do print -rn -- ${(q)text}$'\0'; done < "$0""#, input]
        case .fish:
            arguments = [try requireProgram("fish", install: "apt-get install fish"), "--no-config", "-c",
                         #"for text in (string split0 < $argv[1]); printf '%s\0' (string escape --no-quoted -- $text); end"#, input]
        }
        let run = try await runProcess("/usr/bin/timeout", ["-k", "5", "30"] + arguments, environment: CompletionShell.environment(sandbox))
        let quoted = run.output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard quoted.count == texts.count else { throw TestFailure("\(self) quoted \(quoted.count) of \(texts.count): \(run.error)") }
        return quoted
    }

    /// The words each text is, as this shell reads it when the line is run (so a text that would
    /// run a command runs it, in `directory`): bash and zsh `eval "set -- TEXT"`, fish `eval set`.
    func words(of texts: [String], in sandbox: ProcessSandbox, directory: String) async throws -> [[String]] {
        let scratch = try TemporaryDirectory()
        let input = try scratch.write("texts", Array(texts.map { $0 + "\0" }.joined().utf8))
        let script: String
        let arguments: [String]
        switch self {
        case .bash:
            script = #"while IFS= read -r -d '' text; do eval "set -- $text"; printf '%s\0' "$#" "$@"; done < "$0""#
            arguments = [try requireProgram("bash", install: "apt-get install bash"), "--norc", "-c", script, input]
        case .zsh:
            script = #"while IFS= read -r -d '' text; do eval "set -- $text"; printf '%s\0' "$#" "$@"; done < "$0""#
            arguments = [try requireProgram("zsh", install: "apt-get install zsh"), "-f", "-c", script, input]
        case .fish:
            script = #"for text in (string split0 < $argv[1]); eval "set -g words $text"; printf '%s\0' (count $words) $words; end"#
            arguments = [try requireProgram("fish", install: "apt-get install fish"), "--no-config", "-c", script, input]
        }
        let run = try await runProcess("/usr/bin/timeout", ["-k", "5", "30", "/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + arguments,
                                 environment: CompletionShell.environment(sandbox))
        var fields = run.output.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }[...]
        var words: [[String]] = []
        while let count = fields.popFirst().flatMap(Int.init), fields.count >= count {
            words.append(Array(fields.prefix(count)))
            fields = fields.dropFirst(count)
        }
        guard words.count == texts.count else { throw TestFailure("\(self) read \(words.count) of \(texts.count) texts: \(run.error)") }
        return words
    }
}
