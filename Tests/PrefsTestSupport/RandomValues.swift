import Foundation
@testable import PrefsCore

/// A small seeded generator (SplitMix64) so random tests print a seed that reproduces them.
package struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random property-list values with every type and its edges.
package struct RandomValues {
    package var generator: SeededGenerator
    /// Leave out UIDs (for oracles that cannot read them).
    package var includeUIDs = true
    /// Keys limited to ASCII letters (for oracles whose dictionaries merge canonically equal keys).
    package var asciiKeys = false

    package init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    package mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    package mutating func string() -> String {
        let pools: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x24F, 0x3040...0x30FF, 0x1F600...0x1F64F, 0x10000...0x10FFFF, 0x09...0x0A]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<int(0...12) {
            let pool = pools[int(0...pools.count - 1)]
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &generator)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    package mutating func key() -> String {
        guard asciiKeys else { return string() }
        return String((0..<int(1...8)).map { _ in Character(Unicode.Scalar(UInt8(int(97...122)))) })
    }

    package mutating func scalar() -> PrefValue {
        switch int(0...11) {
        case 0: return .string(string())
        case 1: return .integer(Int64(int(-300...300)))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: return .unsigned(UInt64.random(in: 0 ... .max, using: &generator))
        case 4: return .real(Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator)))
        case 5: return .real([0.0, -0.0, .infinity, -.infinity, .nan, 0.1, 1e300, .leastNonzeroMagnitude][int(0...7)])
        case 6: return .bool(int(0...1) == 1)
        case 7:
            let whole = Double(Int64.random(in: Int64(PrefDate.earliestSeconds)..<Int64(PrefDate.endSeconds) - 1, using: &generator))
            return .date(PrefDate(secondsSinceReferenceDate: whole + Double(int(0...63)) / 64))
        case 8: return .data((0..<int(0...40)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case 9 where includeUIDs: return .uid(UInt64(int(0...100_000)))
        default: return .string(string())
        }
    }

    package mutating func value(depth: Int = 0) -> PrefValue {
        let roll = int(0...9)
        if depth < 4 && roll < 2 { return .array((0..<int(0...6)).map { _ in value(depth: depth + 1) }) }
        if depth < 4 && roll < 4 { return dictionary(depth: depth + 1) }
        return scalar()
    }

    package mutating func dictionary(depth: Int = 0) -> PrefValue {
        var entries: [(String, PrefValue)] = []
        for _ in 0..<int(0...8) { entries.append((key(), value(depth: depth))) }
        return .dictionary(PrefDictionary(entries))
    }
}

/// Where two values first differ, for failure messages ("" when equal).
package func firstDifference(_ a: PrefValue, _ b: PrefValue, path: String = "") -> String {
    switch (a, b) {
    case let (.array(x), .array(y)) where x.count == y.count:
        for (i, pair) in zip(x, y).enumerated() {
            let d = firstDifference(pair.0, pair.1, path: path + ":" + String(i))
            if !d.isEmpty { return d }
        }
        return ""
    case let (.dictionary(x), .dictionary(y)) where x.keys == y.keys:
        for (l, r) in zip(x, y) {
            let d = firstDifference(l.value, r.value, path: path + ":" + l.key)
            if !d.isEmpty { return d }
        }
        return ""
    default:
        return a == b ? "" : "at \(path.isEmpty ? "the root" : path): \(String(describing: a).prefix(200)) vs \(String(describing: b).prefix(200))"
    }
}

/// The seed of this run's random inputs: `PREFS_TEST_SEED` when it is set, else one drawn when a test
/// first asks. A failing random test prints it (`TestSeed.reproduce`), and running the test again with
/// that variable gives the same inputs. A fixed seed beside it (`@Test(arguments: [11, TestSeed.run])`)
/// keeps a case that once failed.
package enum TestSeed {
    package static let run: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["PREFS_TEST_SEED"] {
            guard let seed = UInt64(text) else { fatalError("PREFS_TEST_SEED=\(text) is not a number from 0 to \(UInt64.max)") }
            return seed
        }
        return UInt64.random(in: 0...UInt64.max)
    }()

    /// What a failure message says of `seed`: for this run's seed, the variable that gives the same
    /// inputs again (a fixed seed is in the test's source).
    package static func reproduce(_ seed: UInt64 = run) -> String {
        seed == run ? "seed \(seed) (PREFS_TEST_SEED=\(seed) reproduces it)" : "seed \(seed)"
    }
}
