// swift-tools-version: 6.0
import Foundation
import PackageDescription

// PREFS_TEST_BUILD=1 (the test scripts and CI set it): the debug build made for running the tests,
// which start the debug `prefs` thousands of times and run the library in-process — PrefsCore and
// the command optimized (-O; the suite then spends half the CPU), and `prefs` linked as one static
// file (no dynamic loader at each start). Unset, SwiftPM's own debug build: what a debugger wants
// (-Onone), what `swift test --sanitize` needs (a dynamic executable), and what a package that
// depends on PrefsCore by version may have (no unsafe flags).
let testBuild = ProcessInfo.processInfo.environment["PREFS_TEST_BUILD"] == "1"
let optimizedForTests: [SwiftSetting] = testBuild ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []

// The release build of prefs on Linux is linked by lld (shipped with the toolchain) in the order
// Tests/Benchmarks/startup.order gives: what a short command touches then sits together, in fewer pages,
// and each page touched costs a page fault (Tests/Benchmarks/make-startup-order.sh writes the list;
// README, Performance). lld can only move what the compiler put in a section of its own, so the
// documented release build (README, Install) asks for a section per function and per variable on its
// command line (`-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc
// -fdata-sections`), not here: a library target with unsafe flags cannot be a versioned dependency.
let releaseOnLinux = BuildSettingCondition.when(platforms: [.linux], configuration: .release)

// prefs has no package dependencies: only what the Swift toolchain ships.
let package = Package(
    name: "prefs",
    products: [
        .executable(name: "prefs", targets: ["prefs"]),
        .library(name: "PrefsCore", targets: ["PrefsCore"]),
        .library(name: "PrefsFoundation", targets: ["PrefsFoundation"]),
    ],
    targets: [
        // The library: value model, codecs, stores. Imports only the stdlib and Glibc so a static
        // `prefs` starts in about a millisecond.
        .target(name: "PrefsCore", dependencies: ["CPrefsSystem", "CPrefsTLS"], swiftSettings: optimizedForTests),
        // For Foundation apps: PrefsError as a LocalizedError, and Date, Data, URL and property-list
        // objects to and from PrefsCore's values. Apart, so PrefsCore (and the command) never load Foundation.
        .target(name: "PrefsFoundation", dependencies: ["PrefsCore"]),
        // What Swift cannot reach: the CPU's SHA-256 instructions (x86 SHA-NI, ARMv8 SHA2), chosen at run
        // time, the vector scans of the one-key lookups, placing a helper thread on another CPU, and
        // starting a file's write-back (sync_file_range).
        .target(name: "CPrefsSystem"),
        // TLS for `etcds://` stores, through the system's OpenSSL (Debian: libssl-dev); nothing of it
        // runs before a TLS store is used (cpu.c).
        .target(name: "CPrefsTLS", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // The command: parses argv by hand, calls PrefsCore, prints, exits.
        .target(name: "PrefsCommand", dependencies: ["PrefsCore"], swiftSettings: optimizedForTests),
        // The executable: PrefsCommand's start. The documented release build links it as one static
        // file with its own flags; the debug build, which the tests start thousands of times, links the
        // Swift runtime into it (-static-stdlib), so that no start loads the runtime's shared
        // libraries, and with PREFS_TEST_BUILD=1 is one static file (which --sanitize cannot build).
        // Its linker flags are not built for a package that depends on PrefsCore, nor for the tests,
        // which link PrefsCommand.
        .executableTarget(
            name: "prefs", dependencies: ["PrefsCommand"],
            linkerSettings: [
                .unsafeFlags([
                    "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Tests/Benchmarks/startup.order",
                    "-Xlinker", "--no-warn-symbol-ordering",
                ], releaseOnLinux),
                .unsafeFlags([testBuild ? "-static-executable" : "-static-stdlib"], .when(platforms: [.linux], configuration: .debug)),
            ]),
        // Shared by the test targets: fixture paths, temporary directories, running processes.
        .target(name: "PrefsTestSupport", dependencies: ["PrefsCore"], path: "Tests/PrefsTestSupport"),
        // A Foundation UserDefaults program, run by the interoperability tests.
        .executableTarget(name: "UserDefaultsHelper", path: "Tests/UserDefaultsHelper"),
        // libFuzzer targets over the readers, built with sanitizers by Tests/Fuzz/run-fuzzers.sh; a plain
        // build replays inputs (`PrefsFuzzer TARGET FILE…`).
        .executableTarget(name: "PrefsFuzzer", dependencies: ["PrefsCore"], path: "Tests/Fuzz/PrefsFuzzer"),
        // Codec timings against Foundation, run by Tests/Benchmarks/bench-codecs.sh.
        .executableTarget(name: "CodecBenchmark", dependencies: ["PrefsCore"], path: "Tests/Benchmarks/CodecBenchmark"),
        // Cached reads against UserDefaults, and observation latency, run by Tests/Benchmarks/bench-cache.sh.
        .executableTarget(name: "CacheBenchmark", dependencies: ["PrefsCore"], path: "Tests/Benchmarks/CacheBenchmark"),
        .testTarget(name: "PrefsCoreTests", dependencies: ["PrefsCore", "PrefsTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PrefsFoundationTests", dependencies: ["PrefsFoundation", "PrefsCore"]),
        .testTarget(name: "prefsTests", dependencies: ["PrefsCommand", "PrefsCore", "PrefsTestSupport", "UserDefaultsHelper"]),
    ]
)
