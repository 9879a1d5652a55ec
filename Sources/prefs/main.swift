import Glibc

// A write to a closed pipe then fails with EPIPE, which ends prefs quietly (see CommandLineTool).
signal(SIGPIPE, SIG_IGN)
let argv = (0..<Int(CommandLine.argc)).map { i in
    CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}
// Run as `defaults` (a symlink), prefs is macOS defaults; as anything else, itself.
let personality = Personality(programName: argv.first ?? [])
exit(CommandLineTool.main(raw: Array(argv.dropFirst()), context: .standard, personality: personality))
