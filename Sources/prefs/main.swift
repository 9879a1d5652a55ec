import Glibc

// A write to a closed pipe then fails with EPIPE, which ends prefs quietly (see CommandLineTool).
signal(SIGPIPE, SIG_IGN)
let arguments = (1..<Int(CommandLine.argc)).map { i in
    CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}
exit(CommandLineTool.run(raw: arguments, context: .standard).rawValue)
