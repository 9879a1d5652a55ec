/// Which layers a read sees: every one (what an application sees), or only the stored suite; and
/// the `--defaults FILE`s given for this run.
public struct ReadScope: Sendable {
    public var storedOnly = false
    public var defaults: [String] = []
    /// Whether a suite's layers take the global suite's values (false for what `exec` hands to a program).
    package var globalSuite = true

    public init(storedOnly: Bool = false, defaults: [String] = []) {
        self.storedOnly = storedOnly
        self.defaults = defaults
    }
}

/// Reading for `read`, `read-type`, `find` and `export`: a domain's layers (a suite, a file, or
/// standard input), the value at a key and where it came from, and every suite in turn.
extension SuiteStore {
    /// The layers a read sees.
    package func layers(of domain: Domain, scope: ReadScope = ReadScope()) throws -> Layers {
        guard !scope.defaults.contains("-") else { throw PrefsError.usage("--defaults takes a file, not standard input") }
        return try Layers(domain, in: self, defaults: scope.defaults, storedOnly: scope.storedOnly, globalSuite: scope.globalSuite)
    }

    /// Every key a domain has, with where each value came from: its layers merged, or the dictionary
    /// on standard input (all stored).
    package func contents(of domain: Domain, scope: ReadScope = ReadScope()) throws -> Layers.Resolved {
        let layers = try layers(of: domain, scope: scope)
        guard domain == .standardInput else { return try layers.resolved() }
        let contents = try DocumentInput(fileSystem: fileSystem).dictionary(from: "-")
        return Layers.Resolved(values: contents, origins: Array(repeating: .stored, count: contents.count))
    }

    /// The value at `path` and its layer, read without building the rest of the domain. With
    /// `materializing` false, an external top-level value comes back as its reference, for
    /// `openExternal` or `typeName` (with the place `Layers.blobPlace(for:)` gives its origin).
    public func value(at path: PrefKeyPath, in domain: Domain, scope: ReadScope = ReadScope(), materializing: Bool = true) throws -> (value: PrefValue, origin: Origin) {
        try rereadingReplaced { try valueOnce(at: path, in: domain, scope: scope, materializing: materializing) }
    }

    func valueOnce(at path: PrefKeyPath, in domain: Domain, scope: ReadScope, materializing: Bool) throws -> (value: PrefValue, origin: Origin) {
        try path.check(in: domain.displayName)
        let found: (value: PrefValue, origin: Origin)?
        if domain == .standardInput {
            _ = try layers(of: domain, scope: scope)
            let contents = try DocumentInput(fileSystem: fileSystem).dictionary(from: "-")
            found = try PrefKeyPathError.attributing(domain: domain.displayName, path: path) { try contents.value(at: path) }.map { ($0, .stored) }
        } else {
            found = try layers(of: domain, scope: scope).value(at: path, materializing: materializing)
        }
        guard let found else { throw PrefsError.keyNotFound(domain: domain.displayName, key: path.display) }
        return found
    }

    /// One suite read while reading every suite: its contents, or what went wrong with it.
    package struct EverySuite: Sendable {
        package var suites: [(domain: Domain, contents: PrefDictionary)] = []
        /// Entries passed over while listing (warnings), and suites that could not be read (errors).
        package var skipped: [SkippedEntry] = []
        package var failures: [PrefsError] = []

        /// Keeps a suite's failure; a usage error (a bad environment variable, which every suite
        /// would hit alike) is thrown instead, so it is reported once and nothing is printed.
        mutating func add(failure error: any Error) throws {
            let failure = error as? PrefsError ?? .internalError("\(error)")
            if failure.exitStatus == .usage { throw failure }
            failures.append(failure)
        }
    }

    /// Every suite's stored values (external ones read in), then the global suite's, as `defaults read`
    /// lists them. A suite that cannot be read is kept as a failure; the others are still read. A
    /// usage error (64) ends the listing at once.
    package func everySuite() throws -> EverySuite {
        var result = EverySuite()
        var domains: [Domain] = [.global]
        do {
            let listing = try suiteNames()
            result.skipped = listing.skipped
            domains = listing.names.map { Domain.suite($0) } + domains
        } catch {
            try result.add(failure: error)
        }
        for domain in domains {
            do {
                if let suite = try loadMaterialized(domain) { result.suites.append((domain, suite.contents)) }
            } catch {
                try result.add(failure: error)
            }
        }
        return result
    }
}

/// A string's or data value's bytes, for `read --raw`: in memory, or an external value's blob to
/// stream (checked as it goes).
package enum RawValue {
    case bytes([UInt8])
    case blob(Blob)
}

extension SuiteStore {
    /// `read --raw`: the bytes of the string or data value at `path`, exactly; an external one as
    /// its blob, never held in memory. Any other type is a type mismatch.
    package func raw(at path: PrefKeyPath, in domain: Domain, scope: ReadScope = ReadScope()) throws -> RawValue {
        try rereadingReplaced { try rawOnce(at: path, in: domain, scope: scope) }
    }

    private func rawOnce(at path: PrefKeyPath, in domain: Domain, scope: ReadScope) throws -> RawValue {
        let (value, origin) = try valueOnce(at: path, in: domain, scope: scope, materializing: false)
        func refuse(_ type: String) -> PrefsError {
            .typeMismatch(domain: domain.displayName, key: path.display, reason: "--raw prints strings and data, and the value is \(type)")
        }
        let place = domain == .standardInput ? nil : try layers(of: domain, scope: scope).blobPlace(for: origin)
        if let blob = try openExternal(value, place: place, key: path.display) {
            guard blob.kind == .string || blob.kind == .data else { throw refuse((blob.kind == .array ? "an " : "a ") + blob.kind.rawValue) }
            return .blob(blob)
        }
        switch value {
        case .data(let bytes): return .bytes(bytes)
        case .string(let text): return .bytes(Array(text.utf8))
        default: throw refuse(value.typeNameWithArticle)
        }
    }

    /// `read-type`: the type name of the value at `path` (an external one's, its blob checked).
    package func typeName(at path: PrefKeyPath, in domain: Domain, scope: ReadScope = ReadScope()) throws -> (type: String, origin: Origin) {
        try rereadingReplaced {
            let (value, origin) = try valueOnce(at: path, in: domain, scope: scope, materializing: false)
            let place = domain == .standardInput ? nil : try layers(of: domain, scope: scope).blobPlace(for: origin)
            return (try typeName(of: value, place: place, key: path.display), origin)
        }
    }
}
