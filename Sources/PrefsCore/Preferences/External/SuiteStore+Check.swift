import Glibc

/// `prefs check` and `prefs gc`: every reference against its blob, and blobs no reference names.
/// Neither follows a symlink in external storage: one found there is a problem to report (65), and
/// nothing behind it is read or removed.
extension SuiteStore {
    /// What `check` or `gc` found in one suite.
    package struct ExternalReport: Sendable {
        package var references = 0
        /// One line each, naming the suite and the key or blob.
        package var problems: [String] = []
        /// What `gc` removed (or would, in a dry run): `KEYDIR/NAME` and size.
        package var removed: [(name: String, size: Int)] = []
        /// What changes too large for one request left unfinished, which `gc` removed (or would).
        package var abandoned: [AbandonedChange] = []
    }

    /// The suites `check` and `gc` look at when none is named: every suite (`suites`, from
    /// `suiteNames`), the global suite, and every suite with blobs (even one whose file is gone).
    package func externalSuites(among suites: [String]) throws -> [Domain] {
        var names = Set(suites)
        // An unreadable blob directory (a symlink) is reported by each suite's own check.
        if let blobs = try storage.blobStore(), let directories = try? blobs.suites() { names.formUnion(directories) }
        names.remove("NSGlobalDomain")
        var domains = names.sorted { $0.utf8Compare($1) < 0 }.compactMap { try? Domain(argument: $0) }.filter {
            if case .suite = $0 { return true } else { return false }
        }
        domains.append(.global)
        return domains
    }

    func blobPlace(checking domain: Domain) throws -> BlobPlace {
        guard host == nil else { throw PrefsError.usage("ByHost suites keep their values inline, with no external storage to check") }
        guard domain.registrationName != nil else { throw PrefsError.usage("\(domain.displayName): a file keeps its values inline; name a suite") }
        let location = try location(of: domain)
        guard let place = try blobPlace(for: location) else {
            // A store that would keep the suite's large values apart has no place for them without
            // a data home (the file store); any other keeps every value inline.
            guard storage(for: location).blobSuite(for: location) != nil else { throw PrefsError.usage(SuiteStore.keepsNoExternalValues) }
            throw PrefsError.usage("external storage needs XDG_DATA_HOME or HOME")
        }
        return place
    }

    /// Why `check` and `gc` are refused (64) on a store without external storage.
    static let keepsNoExternalValues = "this store does not keep external values (every value stays inline): there are no blobs to check"

    /// Checks every reference of a suite — the blob is there, of the recorded size and SHA-256 (read in
    /// full) — and lists the blobs no reference names (orphans, including unfinished ones a killed
    /// writer left) and anything in the suite's blob directory that is not a blob. It only reads and
    /// writes nothing (a read-only user of a store, or one that is full, can check it). Writers at
    /// work meanwhile are no problems (see `listed`): a blob a writer holds or is about to remove is
    /// no orphan, and a blob found missing because a change replaced its value since is passed over.
    package func checkExternal(_ domain: Domain) throws -> ExternalReport {
        let place = try blobPlace(checking: domain)
        let location = try location(of: domain)
        let (contents, inventory, unheld) = try listed(location, place: place)
        /// Whether a change replaced or removed the value since the suite was listed.
        func replacedSince(_ entry: PrefDictionary.Element) -> Bool {
            switch Result(catching: { try load(at: location) }) {
            case .success(let suite?): return suite.contents[entry.key] != entry.value
            case .success(nil): return true
            case .failure: return false
            }
        }
        var report = ExternalReport()
        for entry in contents {
            let reference: ExternalReference
            do {
                guard let found = try ExternalReference.parse(entry.value) else {
                    if ExternalReference.containsMarker(entry.value) {
                        report.problems.append("\(place.suite): \(entry.key): a reference inside a value (only top-level values can be external)")
                    }
                    continue
                }
                reference = found
            } catch {
                report.problems.append("\(place.suite): \(entry.key): malformed reference: \(error.reason)")
                continue
            }
            report.references += 1
            do {
                try BlobReader(place: place, reference: reference).forEachChunk { _ in }
            } catch let problem as ExternalReference.Problem where problem.failure != nil {
                throw problem.failure!
            } catch let problem as ExternalReference.Problem where problem.missing && replacedSince(entry) {
                continue
            } catch {
                report.problems.append("\(place.suite): \(entry.key): \((error as? ExternalReference.Problem)?.reason ?? "\(error)")")
            }
        }
        report.problems += inventory.problems
        // A blob no writer held while the suite was listed is left over — but for the old blobs of a
        // change whose store removes them with no lock held: an emptied suite's file removed (with
        // the file gone, a checker locks its directory), or the etcd store's (whose writers take no
        // lock, and which is listed without holding the suite). Those are gone a moment later, or
        // named by the suite as it is then; the others are not. (Only whether it is still there is
        // asked again, never whether it is held: that takes its lock, which a writer removing it
        // would find taken, and leave it.)
        var leftOver = unheld
        if !leftOver.isEmpty {
            usleep(50_000)
            let still = Set(place.store.inventory(of: place.suite).blobs.map(\.id))
            let current = try load(at: location)?.contents ?? PrefDictionary()
            let named = ExternalReference.blobIDs(in: current)
            leftOver = leftOver.filter { still.contains($0.id) && !named.contains($0.id) }
        }
        for blob in leftOver {
            report.problems.append("\(place.suite): \(blob.isUnfinished ? "unfinished blob" : "orphan blob") \(blob.id) (\(blob.size) bytes)")
        }
        for change in try storage(for: location).abandonedChanges(in: location, removing: false) {
            report.problems.append("\(place.suite): \(change.description), whose writer stopped before it committed")
        }
        return report
    }

    /// The suite's contents, its blobs, and those no reference names and no writer holds. Where
    /// holding the suite only reads (files), they are listed while no change can commit. Where it
    /// would write (etcd), they are listed without it, so that a read-only user or a full store can
    /// be checked: the blobs first, then the suite, so a blob a change commits in between is listed
    /// and referenced, or not listed and then read through its reference.
    func listed(_ location: SuiteLocation, place: BlobPlace) throws -> (PrefDictionary, BlobInventory, [BlobEntry]) {
        func list(blobsFirst: Bool) throws -> (PrefDictionary, BlobInventory, [BlobEntry]) {
            let early = blobsFirst ? place.store.inventory(of: place.suite) : nil
            let contents = try load(at: location)?.contents ?? PrefDictionary()
            let inventory = early ?? place.store.inventory(of: place.suite)
            let unheld = SuiteStore.unheldBlobs(inventory, referencedBy: contents, place: place)
            guard !unheld.isEmpty else { return (contents, inventory, unheld) }
            let versioned = try blobsNamedByVersions(location)
            return (contents, inventory, unheld.filter { !versioned.contains($0.id) })
        }
        let storage = storage(for: location)
        guard storage.holdsChangesByReading else { return try list(blobsFirst: true) }
        return try storage.withChangesHeld(location, creating: false) { try list(blobsFirst: false) }
    }

    /// The blobs of an inventory that no reference names and no writer holds, looked at while no change
    /// can commit (`withChangesHeld`). A writer holds a new blob from its creation until its change is
    /// committed or it is removed, and (the file store) removes the old blobs of a change before it
    /// lets go of the suite's lock; so those are orphans, or what a writer that died left.
    static func unheldBlobs(_ inventory: BlobInventory, referencedBy contents: PrefDictionary, place: BlobPlace) -> [BlobEntry] {
        let referenced = ExternalReference.blobIDs(in: contents)
        return inventory.blobs.filter { !referenced.contains($0.id) && place.store.isSettled($0, suite: place.suite) }
    }

    /// Removes a suite's blobs that no reference names and that are older than `grace` seconds, while
    /// no change of the suite can commit (the file store holds its lock); a blob a writer still holds
    /// (written, not yet committed) is never taken, whatever the grace. What a change too large for
    /// one request left when its writer stopped goes too, whatever its age (`abandoned`).
    package func collectGarbage(_ domain: Domain, grace: Double, dryRun: Bool = false, now: Int64 = Int64(time(nil))) throws -> ExternalReport {
        let place = try blobPlace(checking: domain)
        let location = try location(of: domain)
        func collect() throws -> ExternalReport {
            var report = ExternalReport()
            var referenced = Set<String>()
            for entry in try load(at: location)?.contents ?? PrefDictionary() {
                // A malformed reference might still name a blob: keep everything its fields could name.
                if case .dictionary(let fields) = entry.value, fields[ExternalReference.marker] != nil,
                   case .string(let directory)? = fields["key"], case .string(let uuid)? = fields["uuid"] {
                    referenced.insert(directory + "/" + uuid)
                }
            }
            referenced.formUnion(try blobsNamedByVersions(location))
            report.abandoned = try storage(for: location).abandonedChanges(in: location, removing: !dryRun)
            let inventory = place.store.inventory(of: place.suite)
            report.problems = inventory.problems
            for blob in inventory.blobs where !referenced.contains(blob.id) && Double(now - blob.modified) >= grace {
                if !dryRun {
                    do {
                        guard try place.store.removeIfUnused(blob, suite: place.suite) == .removed else { continue }
                    } catch {
                        report.problems.append("\(place.suite): \((error as? ExternalReference.Problem)?.reason ?? "\(error)")")
                        continue
                    }
                }
                report.removed.append((blob.id, blob.size))
            }
            return report
        }
        guard !dryRun else { return try collect() }
        let hasBlobs = !place.store.inventory(of: place.suite).blobs.isEmpty
        return try storage(for: location).withChangesHeld(location, creating: hasBlobs, collect)
    }
}
