/// What a change did: whether anything changed (or would, in a dry run), the changes a dry run
/// found, and the new values of the counters it added to.
public struct ChangeOutcome: Sendable {
    public var changed: Bool
    /// Set for a dry run: each top-level key that would change, with its old and new value.
    public var report: [KeyChange]?
    /// `-int-add` and `-float-add`: the new values, in order.
    public var sums: [PrefValue] = []

    public init(changed: Bool, report: [KeyChange]? = nil, sums: [PrefValue] = []) {
        self.changed = changed
        self.report = report
        self.sums = sums
    }
}

/// How `write` runs besides its values.
package struct WriteOptions: Sendable {
    package var conditions = WriteRequest.Conditions()
    /// `--if-equals VALUE` as typed, typed later as the one change's value is.
    package var ifEquals: String?
    /// `--external` / `--inline`; nil: by size.
    package var placement: Placement = .automatic
    package var dryRun = false
    /// `--ttl`, `--expires-at`: when the values written expire (nil: never; a plain write clears a
    /// deadline the key had).
    package var deadline: PrefDate?

    package init() {}
}

extension WriteRequest {
    /// Applies the changes to a suite's contents (inside the store's atomic change). Returns the new
    /// values of the counters (`-int-add`, `-float-add`), in order.
    package func apply(to contents: inout PrefDictionary, domain: String, conditions: Conditions = Conditions()) throws -> [PrefValue] {
        switch self {
        case .replaceDomain(let replacement):
            guard conditions.ifAbsent else {
                contents = replacement
                return []
            }
            for entry in replacement where contents[entry.key] == nil { contents[entry.key] = entry.value }
            return []
        case .changes(let changes):
            var sums: [PrefValue] = []
            for change in changes {
                try PrefKeyPathError.attributing(domain: domain, path: change.path) {
                    let stored = try contents.value(at: change.path)
                    if conditions.ifAbsent && stored != nil { return }
                    if let expected = conditions.expected, stored != expected {
                        throw PrefsError.conditionFailed(domain: domain, key: change.path.display, found: stored, expected: expected)
                    }
                    if let sum = try change.apply(to: &contents, stored: stored) { sums.append(sum) }
                }
            }
            return sums
        }
    }
}

extension WriteRequest.Change {
    /// Applies one change given the value stored at its path; the new sum for a counter.
    func apply(to contents: inout PrefDictionary, stored: PrefValue?) throws -> PrefValue? {
        switch action {
        case .set(let value):
            try contents.setValue(value, at: path)
        case .arrayAdd(let elements):
            switch stored {
            case nil: try contents.setValue(.array(elements), at: path)
            case .array(let existing)?: try contents.setValue(.array(existing + elements), at: path)
            case let other?: throw PrefKeyPathError(reason: "-array-add needs an array, and the value is \(other.typeNameWithArticle)")
            }
        case .arrayInsert(let index, let elements):
            switch stored {
            case nil where index == 0: try contents.setValue(.array(elements), at: path)
            case nil: throw PrefKeyPathError(reason: "-array-insert \(index): there is no array yet (insert at 0 to start one)")
            case .array(var existing)?:
                guard index <= existing.count else {
                    throw PrefKeyPathError(reason: "-array-insert \(index) is beyond the end of an array of \(existing.count)")
                }
                existing.insert(contentsOf: elements, at: index)
                try contents.setValue(.array(existing), at: path)
            case let other?: throw PrefKeyPathError(reason: "-array-insert needs an array, and the value is \(other.typeNameWithArticle)")
            }
        case .dictAdd(let additions):
            switch stored {
            case nil: try contents.setValue(.dictionary(additions), at: path)
            case .dictionary(var existing)?:
                for entry in additions { existing[entry.key] = entry.value }
                try contents.setValue(.dictionary(existing), at: path)
            case let other?: throw PrefKeyPathError(reason: "-dict-add needs a dictionary, and the value is \(other.typeNameWithArticle)")
            }
        case .setFromFile, .setFromJSONFile:
            throw PrefsError.internalError("a value from a file was not read before the change")
        case .add(let amount):
            let sum = try PrefValue.sum(stored, amount)
            try contents.setValue(sum, at: path)
            return sum
        }
        return nil
    }
}

extension SuiteStore {
    /// `write`: every change parsed first (a bad value changes nothing), values from files read (a
    /// large one streamed straight into its blob before the suite is locked), then one atomic change —
    /// or with `dryRun`, the report of what would change.
    package func write(_ request: WriteRequest, to domain: Domain, options: WriteOptions = WriteOptions()) throws -> ChangeOutcome {
        let target = try target(for: domain)
        // The suite's schema and managed values are found once (on etcd, one request), then type and
        // check the change.
        let checks = try checks(for: target)
        let request = try SuiteStore.typed(request, by: checks.schema, for: target)
        var conditions = options.conditions
        if let text = options.ifEquals {
            guard !conditions.ifAbsent else { throw PrefsError.usage("write: --if-absent and --if-equals cannot be combined") }
            guard case .changes(let changes) = request, changes.count == 1 else {
                throw PrefsError.usage("write: --if-equals needs exactly one KEY [TYPE] VALUE")
            }
            conditions.expected = try changes[0].expected(text, domain: domain.displayName)
        }
        try checkPlacement(options.placement, of: request, target: target)
        var prewritten: [PendingBlob] = []
        let resolved: WriteRequest
        do {
            resolved = try readFiles(request, target: target, options: options, prewritten: &prewritten)
            // A value read from a JSON file has its type only now.
            try checkPlacement(options.placement, of: resolved, target: target)
        } catch {
            discard(prewritten, target: target)
            throw error
        }
        let external = ExternalOptions(placement: options.placement, reading: resolved.keysRead(conditions), prewritten: prewritten)
        var sums: [PrefValue] = []
        var store = self
        switch resolved {
        case .changes(let changes):
            store.expiry = ExpiryChange(keys: KeySet(changes.map(\.path.first)), deadline: options.deadline, unchangedToo: !conditions.ifAbsent)
        case .replaceDomain:
            if options.deadline != nil { throw PrefsError.usage("write: --ttl and --expires-at need KEY [TYPE] VALUE groups, not a whole domain") }
        }
        var outcome = try store.change(target, keys: resolved.topLevelKeys, dryRun: options.dryRun, external: external, checks: checks) { contents in
            sums = try resolved.apply(to: &contents, domain: domain.displayName, conditions: conditions)
        }
        outcome.sums = sums
        if case .replaceDomain(let contents) = request, contents.isEmpty, !options.dryRun { return try creatingEmpty(target, after: outcome) }
        return outcome
    }

    /// After a write that replaced a domain with an empty dictionary and so changed nothing: the
    /// domain's suite, when there is none, is created empty where its store keeps empty suites
    /// (`SuiteBackend.createEmpty`: a file, as `defaults write` makes one).
    func creatingEmpty(_ target: SuiteTarget, after outcome: ChangeOutcome) throws -> ChangeOutcome {
        guard !outcome.changed else { return outcome }
        var outcome = outcome
        outcome.changed = try storage(for: target.location).createEmpty(target.location)
        return outcome
    }

    /// `--external` stores only the strings, data, arrays and dictionaries of a suite's top-level keys.
    func checkPlacement(_ placement: Placement, of request: WriteRequest, target: SuiteTarget) throws {
        guard placement == .external else { return }
        guard target.blobSuite != nil else { throw PrefsError.usage("write: --external needs a suite; a file keeps its values inline") }
        guard case .changes(let changes) = request else { throw PrefsError.usage("write: --external needs KEY [TYPE] VALUE groups") }
        for change in changes {
            let scalar: PrefValue?
            switch change.action {
            case .set(.string), .set(.data), .set(.array), .set(.dictionary), .arrayAdd, .arrayInsert, .dictAdd, .setFromFile, .setFromJSONFile:
                scalar = nil
            case .set(let value): scalar = value
            case .add(let amount): scalar = amount
            }
            if let scalar { throw PrefsError.usage("write: --external stores strings, data, arrays and dictionaries, not \(scalar.typeNameWithArticle) (key \(change.path.display))") }
            guard change.path.components.count == 1 else { throw PrefsError.usage("write: --external stores a top-level key's whole value, not \(change.path.display)") }
        }
    }

    /// The request with every value from a file read: inline, or (for a top-level key of a suite that
    /// nothing else in the write reaches into, not in a dry run) already in a new blob.
    func readFiles(_ request: WriteRequest, target: SuiteTarget, options: WriteOptions, prewritten: inout [PendingBlob]) throws -> WriteRequest {
        guard case .changes(var changes) = request else { return request }
        guard changes.filter({ $0.action == .setFromJSONFile("-") || { if case .setFromFile("-", _) = $0 { true } else { false } }($0.action) })
            .count <= 1 else {
            throw PrefsError.usage("write: standard input can give only one value")
        }
        for (i, change) in changes.enumerated() {
            if case .setFromJSONFile(let source) = change.action {
                changes[i] = WriteRequest.Change(path: change.path, action: .set(try jsonDocument(from: source, domain: target.displayName, key: change.path.display)),
                                                    flag: change.flag)
                continue
            }
            guard case .setFromFile(let source, let kind) = change.action else { continue }
            let alone = changes.filter { $0.path.first.utf8.elementsEqual(change.path.first.utf8) }.count == 1
            let streaming = change.path.components.count == 1 && alone && !options.dryRun
            switch try readValue(from: source, kind: kind, key: change.path.first, for: target, placement: streaming ? options.placement : .inline) {
            case .inline(let value):
                changes[i] = WriteRequest.Change(path: change.path, action: .set(value), flag: change.flag)
            case .external(let pending):
                prewritten.append(pending)
                changes[i] = WriteRequest.Change(path: change.path, action: .set(pending.reference.value), flag: change.flag)
            }
        }
        return .changes(changes)
    }

    /// Runs a change for real, in one atomic change of the store, or with `dryRun` reports what it
    /// would change and changes nothing (no lock, no file, no directory).
    package func change(_ target: SuiteTarget, keys: KeySet? = nil, removingEmpty: Bool = false, dryRun: Bool = false,
                       external: ExternalOptions = ExternalOptions(), checks: ChangeChecks? = nil,
                       _ change: (inout PrefDictionary) throws -> Void) throws -> ChangeOutcome {
        guard dryRun else {
            return ChangeOutcome(changed: try update(target, keys: keys, removingEmpty: removingEmpty, external: external, checks: checks, change))
        }
        let (before, after) = try preview(target, keys: keys, removingEmpty: removingEmpty, external: external, checks: checks, change)
        let report = before.changes(to: after)
        return ChangeOutcome(changed: !report.isEmpty, report: report)
    }
}
