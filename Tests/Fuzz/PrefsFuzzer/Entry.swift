// Built by Tests/Fuzz/run-fuzzers.sh with libFuzzer, AddressSanitizer and `-DFUZZING`,
// this is a libFuzzer target: libFuzzer's main calls LLVMFuzzerTestOneInput, and PREFS_FUZZ_TARGET
// names the property to check (binary, xml, openstep, json, patch, text). Built plainly (as
// `swift build` and `swift test` do), it replays inputs instead:
//   PrefsFuzzer TARGET FILE...
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PrefsFuzzer: \(message)\n".utf8))
    exit(64)
}

let targetNames = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")

#if FUZZING
let fuzzTarget: FuzzTarget = {
    guard let name = ProcessInfo.processInfo.environment["PREFS_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name) else {
        fail("set PREFS_FUZZ_TARGET to \(targetNames)")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzTarget.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
@main
struct ReplayInputs {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            fail("usage: PrefsFuzzer \(targetNames) FILE...")
        }
        for path in arguments.dropFirst() {
            target.check([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        print("\(name): \(arguments.count - 1) inputs hold")
    }
}
#endif
