// swift-tools-version: 6.0
import PackageDescription

// prefs has no package dependencies: only what the Swift toolchain ships.
let package = Package(
    name: "prefs",
    products: [
        .executable(name: "prefs", targets: ["prefs"]),
        .library(name: "PrefsCore", targets: ["PrefsCore"]),
    ],
    targets: [
        // The library: value model, codecs, stores. Imports only the stdlib and Glibc so a static
        // `prefs` starts in about a millisecond.
        .target(name: "PrefsCore", dependencies: ["CPrefsSystem"]),
        // What Swift cannot reach: the CPU's SHA-256 instructions (x86 SHA-NI, ARMv8 SHA2), chosen at run
        // time, the vector scans of the one-key lookups, and placing a helper thread on another CPU.
        .target(name: "CPrefsSystem"),
        // The command: parses argv by hand, calls PrefsCore, prints, exits.
        .executableTarget(name: "prefs", dependencies: ["PrefsCore"]),
        // Shared by the test targets: fixture paths, temporary directories, running processes.
        .target(name: "PrefsTestSupport", dependencies: ["PrefsCore"], path: "Tests/PrefsTestSupport"),
        // A Foundation UserDefaults program, run by the interoperability tests.
        .executableTarget(name: "UserDefaultsHelper", path: "Tests/UserDefaultsHelper"),
        // libFuzzer targets over the readers, built with sanitizers by Tests/Fuzz/run-fuzzers.sh; a plain
        // build replays inputs (`PrefsFuzzer TARGET FILE…`).
        .executableTarget(name: "PrefsFuzzer", dependencies: ["PrefsCore"], path: "Tests/Fuzz/PrefsFuzzer"),
        // Codec timings against Foundation, run by Tests/Benchmarks/bench-codecs.sh.
        .executableTarget(name: "CodecBenchmark", dependencies: ["PrefsCore"], path: "Tests/Benchmarks/CodecBenchmark"),
        .testTarget(name: "PrefsCoreTests", dependencies: ["PrefsCore", "PrefsTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "prefsTests", dependencies: ["prefs", "PrefsCore", "PrefsTestSupport", "UserDefaultsHelper"]),
    ]
)
