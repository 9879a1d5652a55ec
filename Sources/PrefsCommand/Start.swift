import Glibc
import PrefsCore

extension CommandLineTool {
    /// The prefs command from its start to its exit status: the process's settings, argv read as
    /// bytes, and the command line run as prefs, or as macOS `defaults` when started by that name
    /// (a symlink). The executable (Sources/prefs/main.swift) is this call and nothing else, so the
    /// tests link this module without the executable's link settings.
    package static func start() -> Int32 {
        Signals.ignorePipe()
        // etcd host names from /etc/hosts and DNS only, never an NSS module, in every build (HostResolver).
        HostResolver.filesAndDNSOnly.store(true, ordering: .relaxed)
        // OpenSSL is this program's alone: set up without what it keeps for other code (TLSLibrary).
        TLSLibrary.ownsProcess.store(true, ordering: .relaxed)
        func argument(_ i: Int) -> [UInt8] {
            CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
        }
        // Plain loops, not slices of arrays: each new generic type is built at run time on first use,
        // which a short command pays for at every start (see Tests/Benchmarks/bench-startup.sh).
        var arguments: [[UInt8]] = []
        arguments.reserveCapacity(max(Int(CommandLine.argc) - 1, 0))
        for i in 1..<max(Int(CommandLine.argc), 1) { arguments.append(argument(i)) }
        let personality = Personality(programName: CommandLine.argc > 0 ? argument(0) : [])
        return main(raw: arguments, context: .standard, personality: personality)
    }
}
