/// What `prefs migrate` does with each key: a plan applied to a source's contents and a target
/// suite's, with an outcome per key. It is a pure function of its inputs; the command runs it inside
/// the target's locked write and writes nothing when a key fails (unless errors are skipped).
package struct MigrationPlan: Sendable {
    /// Only these keys (key paths) of the source; nil: every top-level key.
    package var keys: [PrefKeyPath]?
    /// Keys whose 0/1, yes/no, on/off or true/false values (any case) become booleans; anything
    /// else there is an error for that key.
    package var boolKeys: [PrefKeyPath] = []
    /// A migrated key's new name: `from` is one of the migrated keys.
    package var renames: [(from: PrefKeyPath, to: PrefKeyPath)] = []
    /// Strings that spell a number or a boolean become one (see `Migration.inferred`).
    package var inferTypes = false
    /// With `inferTypes`, the words that spell booleans besides true and false: yes/no and on/off
    /// from an INI file, whose readers (PHP, git config) take them so.
    package var booleanWords: [String: Bool] = ["true": true, "false": false]
    /// With `inferTypes`, the source's values that stay text: INI values written in quotes.
    package var quoted: [PrefKeyPath] = []
    /// Strings that are a JSON object or array become that value, until none is left.
    package var decodeJSONStrings = false
    /// Replace a target value that differs (else it is kept: a conflict).
    package var overwrite = false
    /// Leave out the keys that fail instead of failing the migration.
    package var skipErrors = false

    package init() {}

    /// The source keys the plan migrates, in order.
    package func selectedKeys(in source: PrefDictionary) -> [PrefKeyPath] { keys ?? source.keys.map { PrefKeyPath([$0]) } }

    /// The new name of a migrated key, when it is renamed.
    package func rename(of path: PrefKeyPath) -> PrefKeyPath? { renames.last { $0.from == path }?.to }
}

package struct MigrationReport: Equatable, Sendable {
    package enum Outcome: Equatable, Sendable {
        /// The target now holds `value` (it was absent, or differed and was overwritten).
        case migrated(PrefValue)
        /// The target already held the same value.
        case unchanged
        /// The target holds `stored`, which differs from the source's `value`: kept.
        case skippedConflict(value: PrefValue, stored: PrefValue)
        /// A key the plan names that the source does not have.
        case missing
        case error(String)

        package var name: String {
            switch self {
            case .migrated: return "migrated"
            case .unchanged: return "unchanged"
            case .skippedConflict: return "skipped-conflict"
            case .missing: return "missing"
            case .error: return "error"
            }
        }
    }

    package struct Entry: Equatable, Sendable {
        package let key: PrefKeyPath
        /// The key it goes to, when renamed.
        package let target: PrefKeyPath?
        package let outcome: Outcome
    }

    package var entries: [Entry] = []

    package init() {}

    package var failed: Bool { entries.contains { if case .error = $0.outcome { return true } else { return false } } }

    /// `N migrated, N unchanged, N skipped-conflict, N missing, N error(s)`.
    package var summary: String {
        ["migrated", "unchanged", "skipped-conflict", "missing", "error"].map { name in
            let count = entries.filter { $0.outcome.name == name }.count
            return "\(count) \(name == "error" && count != 1 ? "errors" : name)"
        }.joined(separator: ", ")
    }
}

package enum Migration {
    /// Applies `plan` to `target` from `source`. `problems` are keys the source could not read
    /// cleanly (a text source's repeated key): each is an error for the migrated key that holds it.
    /// Two migrated keys that would land on the same place are both errors. When the source is the
    /// target itself (`inPlace`), a key's changed value is always written back, and a renamed key
    /// moves (its old key goes) unless its new key holds a different value (a conflict, as usual).
    package static func run(_ plan: MigrationPlan, source: PrefDictionary, problems: [(path: PrefKeyPath, reason: String)] = [],
                           target: inout PrefDictionary, inPlace: Bool = false) -> MigrationReport {
        var report = MigrationReport()
        var seen = Set<PrefKeyPath>()
        let selected = plan.selectedKeys(in: source).filter { seen.insert($0).inserted }
        let destinations = selected.map { plan.rename(of: $0) ?? $0 }
        // Only keys the source has go anywhere; the others are reported missing.
        let present = selected.map { ((try? source.value(at: $0)) ?? nil) != nil }
        let moving = zip(zip(selected, destinations), present).filter(\.1).map(\.0)
        let collisions = collidingDestinations(moving)
        let landing = Set(moving.map(\.1))
        for (path, destination) in zip(selected, destinations) {
            let renamed = plan.rename(of: path)
            let outcome: MigrationReport.Outcome
            if let other = collisions[path] {
                outcome = .error("\(other.display) would land on \(destination.display) too")
            } else {
                outcome = migrate(path, to: destination, plan, source: source, problems: problems, target: &target, inPlace: inPlace)
            }
            // In place, a renamed key moves: its old key goes, unless another key lands there.
            if inPlace, renamed != nil, !overlaps(path, destination), !landing.contains(where: { overlaps($0, path) }),
               case .migrated = outcome {
                _ = try? target.removeValue(at: path)
            }
            report.entries.append(MigrationReport.Entry(key: path, target: renamed, outcome: outcome))
        }
        for rename in plan.renames where !seen.contains(rename.from) {
            report.entries.append(MigrationReport.Entry(key: rename.from, target: rename.to, outcome: .missing))
        }
        // A boolean key the source does not have is most likely misspelt: say so (once).
        let reported = Set(report.entries.filter { $0.outcome == .missing }.map(\.key))
        for key in plan.boolKeys where !reported.contains(key) && ((try? source.value(at: key)) ?? nil) == nil {
            report.entries.append(MigrationReport.Entry(key: key, target: nil, outcome: .missing))
        }
        return report
    }

    /// For each migrated key (source path → destination) whose destination another one shares, or
    /// lies inside or around: that other key. Linear in the number of keys and their depth.
    static func collidingDestinations(_ moves: [(PrefKeyPath, PrefKeyPath)]) -> [PrefKeyPath: PrefKeyPath] {
        var landing: [PrefKeyPath: [PrefKeyPath]] = [:]
        var inside: [PrefKeyPath: PrefKeyPath] = [:]  // a proper prefix of a destination → a key landing below it
        for (path, destination) in moves {
            landing[destination, default: []].append(path)
            for depth in 1..<max(1, destination.components.count) {
                inside[PrefKeyPath(Array(destination.components.prefix(depth)))] = path
            }
        }
        var colliding: [PrefKeyPath: PrefKeyPath] = [:]
        for (path, destination) in moves {
            if let other = landing[destination]?.first(where: { $0 != path }) ?? inside[destination] {
                colliding[path] = other
                continue
            }
            for depth in 1..<max(1, destination.components.count) {
                if let other = landing[PrefKeyPath(Array(destination.components.prefix(depth)))]?.first {
                    colliding[path] = other
                    break
                }
            }
        }
        return colliding
    }

    /// Whether one path is the other or inside it.
    static func overlaps(_ a: PrefKeyPath, _ b: PrefKeyPath) -> Bool { a.starts(with: b) || b.starts(with: a) }

    /// One key: its value from the source, transformed (JSON strings decoded, booleans, inferred
    /// types — in that order, so a second run changes nothing), then compared with the target's.
    static func migrate(_ path: PrefKeyPath, to destination: PrefKeyPath, _ plan: MigrationPlan, source: PrefDictionary,
                        problems: [(path: PrefKeyPath, reason: String)], target: inout PrefDictionary, inPlace: Bool) -> MigrationReport.Outcome {
        if let problem = problems.first(where: { overlaps($0.path, path) }) {
            return .error((problem.path == path ? "" : problem.path.display + ": ") + problem.reason)
        }
        do {
            guard var value = try source.value(at: path) else { return .missing }
            if plan.decodeJSONStrings { value = decodingJSONStrings(value) }
            for boolKey in plan.boolKeys where boolKey.starts(with: path) {
                let inner = boolKey.components.dropFirst(path.components.count)
                if let found = try value.value(at: inner) {
                    try value.setValue(try boolean(found, at: boolKey, in: path), at: inner)
                }
            }
            if plan.inferTypes {
                let written = value
                value = inferred(value, booleanWords: plan.booleanWords)
                for quoted in plan.quoted where quoted.starts(with: path) {
                    let inner = quoted.components.dropFirst(path.components.count)
                    guard !inner.isEmpty else { value = written; continue }
                    if let text = try written.value(at: inner) { try value.setValue(text, at: inner) }
                }
            }
            let stored = try target.value(at: destination)
            if stored == value { return .unchanged }
            let rewritesItself = inPlace && destination == path
            if let stored, !plan.overwrite && !rewritesItself { return .skippedConflict(value: value, stored: stored) }
            try target.setValue(value, at: destination)
            return .migrated(value)
        } catch let error as PrefKeyPathError {
            return .error(error.reason)
        } catch {
            return .error("\(error)")
        }
    }

    /// `--bool-keys`: a boolean, the integers 0 and 1, or the strings 0, 1, yes, no, on, off, true
    /// and false in any case.
    static func boolean(_ value: PrefValue, at key: PrefKeyPath, in migrated: PrefKeyPath) throws(PrefKeyPathError) -> PrefValue {
        switch value {
        case .bool: return value
        case .integer(0): return .bool(false)
        case .integer(1): return .bool(true)
        case .string(let text):
            switch text.lowercased() {
            case "1", "yes", "on", "true": return .bool(true)
            case "0", "no", "off", "false": return .bool(false)
            default: break
            }
        default: break
        }
        let place = key == migrated ? "" : key.display + " "
        throw PrefKeyPathError(reason: "\(place)is \(value.typeNameWithArticle) that is not 0/1, yes/no, on/off or true/false")
    }

    /// `--infer-types`, through containers: a string that is a decimal integer written the way it
    /// prints (no sign but `-`, no leading zero: `007` stays text) becomes an integer; one with a
    /// fraction or exponent that reads as a finite real becomes a real; `booleanWords` (true and
    /// false) in any case become booleans. Everything else stays a string.
    package static func inferred(_ value: PrefValue, booleanWords: [String: Bool] = MigrationPlan().booleanWords) -> PrefValue {
        switch value {
        case .string(let text):
            if let truth = booleanWords[text.lowercased()] { return .bool(truth) }
            let utf8 = Array(text.utf8)
            let digits = utf8.first == UInt8(ascii: "-") ? utf8.dropFirst() : utf8[...]
            guard let first = digits.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return value }
            if digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                guard digits.count == 1 || first != UInt8(ascii: "0"), text != "-0" else { return value }
                return NumberText.integer(utf8) ?? value
            }
            guard let real = NumberText.real(utf8, allowNamedValues: false), real.isFinite else { return value }
            return .real(real)
        case .array(let elements): return .array(elements.map { inferred($0, booleanWords: booleanWords) })
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues { inferred($0, booleanWords: booleanWords) })
        default: return value
        }
    }

    /// `--decode-json-strings`, through containers: a string that is a JSON object or array becomes
    /// that value, whose strings are looked at in turn, so a second run changes nothing. Other
    /// strings (JSON scalars, text that merely starts with a bracket, JSON holding null) stay.
    package static func decodingJSONStrings(_ value: PrefValue) -> PrefValue {
        switch value {
        case .string(let text):
            let start = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
            guard start == UInt8(ascii: "{") || start == UInt8(ascii: "["),
                  let decoded = try? JSONTextDecoder.decode(Array(text.utf8)) else { return value }
            return decodingJSONStrings(decoded)
        case .array(let elements): return .array(elements.map(decodingJSONStrings))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(decodingJSONStrings))
        default: return value
        }
    }
}

extension PrefKeyPath {
    /// Whether `prefix`'s components begin this path's.
    package func starts(with prefix: PrefKeyPath) -> Bool {
        components.count >= prefix.components.count
            && zip(components, prefix.components).allSatisfy { $0.utf8Compare($1) == 0 }
    }
}
