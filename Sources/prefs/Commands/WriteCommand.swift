import PrefsCore

/// `prefs write DOMAIN KEY [TYPE] VALUE…` or `prefs write DOMAIN PLIST` — every change on the command
/// line is parsed first (a bad value changes nothing), then applied in one locked write. Counters
/// (`-int-add`, `-float-add`) print their new values. `--if-absent` skips keys already stored;
/// `--if-equals VALUE` changes the one key only while it holds VALUE (else exit 4). With
/// `--exit-code`, exits 3 when the suite changed and 0 when every value was already so.
///
/// Large values of a suite go to external storage (`--external` / `--inline` decide instead of the
/// size); a value from a file (`-data @FILE`, `-string-file FILE`) is streamed straight into its
/// blob before the suite is locked.
enum WriteCommand {
    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> ExitStatus {
        let domain = try Domain(argument: invocation.operands[0])
        var request = try WriteRequest.parse(invocation.operands.dropFirst(), domain: domain.displayName)
        let file = try context.store.target(for: domain)
        let placement = try placement(invocation, request, file: file)
        var conditions = WriteRequest.Conditions(ifAbsent: invocation.has("if-absent"))
        if let text = invocation.value("if-equals") {
            guard !conditions.ifAbsent else { throw PrefsError.usage("write: --if-absent and --if-equals cannot be combined") }
            guard case .changes(let changes) = request, changes.count == 1 else {
                throw PrefsError.usage("write: --if-equals needs exactly one KEY [TYPE] VALUE")
            }
            do {
                conditions.expected = try changes[0].expected(text)
            } catch PrefsError.invalidValue(let message) {
                throw PrefsError.invalidValue("\(domain.displayName): \(message)")
            }
        }
        var prewritten: [PendingBlob] = []
        do {
            request = try readFiles(request, invocation, context, file: file, placement: placement, prewritten: &prewritten)
        } catch {
            context.store.discard(prewritten, target: file)
            throw error
        }
        var sums: [PrefValue] = []
        let external = ExternalOptions(placement: placement, reading: request.keysRead(conditions), prewritten: prewritten)
        let changed = try Changing.run(invocation, context, file, keys: request.topLevelKeys, external: external) { contents in
            sums = try request.apply(to: &contents, domain: domain.displayName, conditions: conditions)
        }
        Changing.printCounters(sums, invocation, context)
        return invocation.changeStatus(changed)
    }

    /// `--external` or `--inline`: only for the strings, data, arrays and dictionaries of a suite.
    static func placement(_ invocation: Invocation, _ request: WriteRequest, file: SuiteTarget) throws -> Placement {
        switch (invocation.has("external"), invocation.has("inline")) {
        case (true, true): throw PrefsError.usage("write: --external and --inline cannot be combined")
        case (false, true): return .inline
        case (false, false): return .automatic
        case (true, false):
            guard file.blobSuite != nil else { throw PrefsError.usage("write: --external needs a suite; a file keeps its values inline") }
            guard case .changes(let changes) = request else { throw PrefsError.usage("write: --external needs KEY [TYPE] VALUE groups") }
            for change in changes {
                let scalar: PrefValue?
                switch change.action {
                case .set(.string), .set(.data), .set(.array), .set(.dictionary): scalar = nil
                case .set(let value): scalar = value
                case .add(let amount): scalar = amount
                case .arrayAdd, .dictAdd, .setFromFile: scalar = nil
                }
                if let scalar { throw PrefsError.usage("write: --external stores strings, data, arrays and dictionaries, not \(scalar.typeNameWithArticle) (key \(change.path.display))") }
                guard change.path.components.count == 1 else { throw PrefsError.usage("write: --external stores a top-level key's whole value, not \(change.path.display)") }
            }
            return .external
        }
    }

    /// The request with every value from a file read: inline, or (for a top-level key of a suite, not
    /// in a dry run) already in a new blob whose reference it sets.
    static func readFiles(_ request: WriteRequest, _ invocation: Invocation, _ context: CommandContext, file: SuiteTarget,
                          placement: Placement, prewritten: inout [PendingBlob]) throws -> WriteRequest {
        guard case .changes(var changes) = request else { return request }
        guard changes.filter({ if case .setFromFile("-", _) = $0.action { true } else { false } }).count <= 1 else {
            throw PrefsError.usage("write: standard input can give only one value")
        }
        for (i, change) in changes.enumerated() {
            guard case .setFromFile(let source, let kind) = change.action else { continue }
            // Straight into a blob only when nothing else in the write reaches into the value.
            let alone = changes.filter { $0.path.first.utf8.elementsEqual(change.path.first.utf8) }.count == 1
            let streaming = change.path.components.count == 1 && alone && !invocation.has("dry-run")
            switch try context.store.readValue(from: source, kind: kind, key: change.path.first, for: file, placement: streaming ? placement : .inline) {
            case .inline(let value):
                changes[i] = WriteRequest.Change(path: change.path, action: .set(value), flag: change.flag)
            case .external(let pending):
                prewritten.append(pending)
                changes[i] = WriteRequest.Change(path: change.path, action: .set(pending.reference.value), flag: change.flag)
            }
        }
        return .changes(changes)
    }
}
