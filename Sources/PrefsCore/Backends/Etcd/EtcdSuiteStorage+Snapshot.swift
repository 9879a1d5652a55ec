/// What the etcd store tells of its reads, for the host's last-known-good snapshots
/// (`SnapshotCache`): each place read, the revision of its marker as its version.
extension EtcdSuiteStorage {
    /// `etcd://` or `etcds://`, the endpoints (host names lowercased) sorted, then `/PREFIX`: the
    /// same name whichever order a URL gives the members in.
    package var snapshotName: String? {
        guard let (endpoints, prefix, secure) = try? EtcdClient.parse(url: name) else { return name }
        var named = secure ? "etcds://" : "etcd://"
        // A loop, not `joined(separator:)`: its generic form costs a one-key read 0.1 M instructions.
        for (i, endpoint) in endpoints.map({ $0.description.lowercased() }).sorted(by: { $0.utf8Compare($1) < 0 }).enumerated() {
            if i > 0 { named += "," }
            named += endpoint
        }
        return named + "/" + prefix
    }

    package func observing(_ observer: any ReadObserver) -> any SuiteBackend {
        var observed = self
        observed.observer = observer
        return observed
    }

    /// What a read of `location` found: its marker's revision, whether it exists, and its values
    /// (all of them, or those of `keys`, the others of `keys` absent).
    func reading(_ location: SuiteLocation, _ read: Snapshot, _ contents: PrefDictionary, keys: [String]?) -> PlaceReading {
        PlaceReading(location: location, version: read.marker?.modRevision ?? 0, exists: read.exists, values: contents,
                     absent: keys?.filter { contents[$0] == nil } ?? [], whole: keys == nil, revision: read.revision)
    }
}
