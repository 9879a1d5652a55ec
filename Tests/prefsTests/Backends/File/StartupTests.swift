import Foundation
import Testing

/// What every command pays before `main`, kept out of the binary.
@Suite struct StartupTests {
    /// The compiler's `__builtin_cpu_supports` links in libgcc's constructor `__cpu_indicator_init`,
    /// which runs a dozen CPUID instructions at every start; in a virtual machine each one traps to
    /// the hypervisor (7–10 µs apiece where prefs is measured: about 0.1 ms of every command).
    /// CPrefsSystem's cpu.c asks glibc instead.
    @Test func noConstructorAsksTheCPUAtEveryStart() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.binary))
        // The symbol table is there to be searched: one of our own C functions is named in it.
        #expect(bytes.range(of: Data("prefs_sha256_hardware\0".utf8)) != nil)
        #expect(bytes.range(of: Data("__cpu_indicator_init\0".utf8)) == nil)
    }
}
