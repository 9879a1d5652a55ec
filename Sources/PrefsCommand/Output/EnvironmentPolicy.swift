import Glibc
import PrefsCore

/// What prefs refuses to hand a program as environment (`exec`, `export --format sh|env|github`,
/// `watch --exec`): a name that changes how a program is loaded or how a shell runs, unless the
/// user names it (`--keys`), and a value no environment can hold. The deny list is the man page's
/// ("Names refused", under export); keep the two alike.
enum EnvironmentPolicy {
    /// The names glibc drops for setuid programs as unsafe (its `sysdeps/generic/unsecvars.h`,
    /// `GLIBC_TUNABLES` included), less the loader's `LD_*`, which the prefix takes.
    static let unsecure: Set<String> = [
        "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE",
        "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR",
    ]

    /// Shell variables that run code or change how a script runs, each with why.
    static let shell: [String: String] = {
        var reasons: [String: String] = [:]
        for name in ["BASH_ENV", "ENV", "ZDOTDIR"] { reasons[name] = "a shell runs the file it names when it starts" }
        for name in ["PS1", "PS2", "PS4", "PROMPT_COMMAND"] { reasons[name] = "a shell expands or runs it as a prompt or trace" }
        for name in ["SHELLOPTS", "BASHOPTS"] { reasons[name] = "it sets a shell's options" }
        for name in ["IFS", "CDPATH", "GLOBIGNORE"] { reasons[name] = "it changes how a shell splits words, changes directory or matches names" }
        reasons["PATH"] = "it decides which program a command name runs"
        for name in ["HOME", "SHELL"] { reasons[name] = "programs trust it to name the user's home directory and shell" }
        return reasons
    }()

    /// Why a variable of this name is refused unless named in `--keys`; nil when it is not.
    static func danger(of name: String) -> String? {
        if name.hasPrefix("LD_") { return "the dynamic loader obeys LD_* names" }
        if name.hasPrefix("BASH_FUNC_") { return "bash imports it as a function" }
        if unsecure.contains(name) { return "glibc drops it as unsafe for setuid programs" }
        return shell[name]
    }

    /// The refusal of a denied name, or nil.
    static func check(_ name: String, domain: String) -> PrefsError? {
        danger(of: name).map { EnvironmentOutput.refusal(domain, name, "refused: \($0); name it in --keys to set it") }
    }

    /// The most one variable can be, `NAME=VALUE` and its NUL (Linux's MAX_ARG_STRLEN: 32 pages of 4 KiB).
    static let variableLimit = 128 * 1024

    /// The bytes `execve` counts for a string: its own, its NUL and a pointer to it.
    static func cost(_ string: String) -> Int { string.utf8.count + 1 + MemoryLayout<UnsafeRawPointer>.size }

    /// ARG_MAX: what the arguments and environment of a program may take together.
    static var argumentLimit: Int { max(Int(sysconf(Int32(_SC_ARG_MAX))), variableLimit) }

    /// A variable too large for any environment is refused, naming it.
    static func checkSize(_ variable: EnvironmentOutput.Variable, domain: String) throws {
        let size = variable.name.utf8.count + variable.value.utf8.count + 2
        guard size > variableLimit else { return }
        throw EnvironmentOutput.refusal(domain, variable.name, "is \(size) bytes as NAME=VALUE, more than one environment variable can hold (128 KiB)")
    }

    /// Refuses variables that, with `others` bytes of arguments and inherited environment, would be
    /// more than ARG_MAX, naming the largest.
    static func checkTotal(_ variables: [EnvironmentOutput.Variable], others: Int, domain: String) throws {
        let total = variables.reduce(others) { $0 + cost($1.name + "=" + $1.value) }
        let limit = argumentLimit
        guard total > limit, let largest = variables.max(by: { $0.value.utf8.count < $1.value.utf8.count }) else { return }
        throw EnvironmentOutput.refusal(domain, largest.name, "the environment would be \(total) bytes with it, more than a program can be given (ARG_MAX, \(limit) bytes)")
    }
}
