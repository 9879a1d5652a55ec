import PrefsCore

enum CommandTable {
    static let version = "0.1.0"

    /// Options every verb accepts.
    static let common = [OptionSpec(name: "help", short: nil, value: nil, choices: [], repeatable: false, summary: "show help for this verb")]

    /// Options accepted before the verb.
    static let global = [
        OptionSpec(name: "help", short: nil, value: nil, choices: [], repeatable: false, summary: "show this help (also -h)"),
        OptionSpec(name: "version", short: nil, value: nil, choices: [], repeatable: false, summary: "print the version"),
        OptionSpec(name: "store", short: nil, value: "URL", choices: [], repeatable: false,
                   summary: "before the verb: keep suites in etcd (etcd://HOST:PORT[,HOST:PORT...][/PREFIX], etcds://... for TLS; default $PREFS_STORE, else files)"),
        OptionSpec(name: "currentHost", short: nil, value: nil, choices: [], repeatable: false,
                   summary: "before the verb: the suites of this machine (ByHost; host ID $PREFS_HOST_ID, else /etc/machine-id)", singleDash: true),
        OptionSpec(name: "host", short: nil, value: "NAME", choices: [], repeatable: false,
                   summary: "before the verb: the suites of host NAME (ByHost)", singleDash: true),
    ]

    static let verbs: [VerbSpec] = [
        VerbSpec(ReadCommand.self), VerbSpec(ReadTypeCommand.self), VerbSpec(WriteCommand.self), VerbSpec(DeleteCommand.self),
        VerbSpec(RenameCommand.self), VerbSpec(RegisterCommand.self), VerbSpec(ResetCommand.self), VerbSpec(DomainsCommand.self),
        VerbSpec(FindCommand.self), VerbSpec(LintCommand.self), VerbSpec(ExportCommand.self), VerbSpec(ImportCommand.self),
        VerbSpec(MigrateCommand.self), VerbSpec(DumpCommand.self), VerbSpec(LoadCommand.self), VerbSpec(WatchCommand.self),
        VerbSpec(ExecCommand.self), VerbSpec(LockCommand.self), VerbSpec(LocksCommand.self), VerbSpec(HistoryCommand.self), VerbSpec(DiffCommand.self),
        VerbSpec(RollbackCommand.self), VerbSpec(EditCommand.self),
        VerbSpec(DescribeCommand.self), VerbSpec(CheckCommand.self), VerbSpec(GCCommand.self),
        VerbSpec(CompletionCommand.self), VerbSpec(HelpCommand.self),
    ]

    static func verb(named name: String) -> VerbSpec? { verbs.first { $0.name == name } }
}
