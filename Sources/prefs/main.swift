#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), context: .standard).rawValue)
