/// What a store tells of each place it reads, when asked to (`SuiteBackend.observing(_:)`): what the
/// host keeps as the last-known-good snapshot of a suite read from a remote store
/// (`SnapshotCache`). Each reading is a fact about one version of one place, true whatever else was
/// read with it, so readings may be kept one by one.
package struct PlaceReading: Sendable, Equatable {
    package let location: SuiteLocation
    /// What changes whenever the place's contents change (etcd: the revision of its marker, which
    /// every change rewrites); 0 when the store cannot tell (no marker).
    package let version: Int64
    /// Whether the place exists (etcd: it has a marker or values).
    package let exists: Bool
    /// Every value of the place (`whole`), or those of the keys read that it holds; external values
    /// as their references.
    package let values: PrefDictionary
    /// The keys read and not there (none for a whole reading).
    package let absent: [String]
    /// Whether `values` is all the place holds.
    package let whole: Bool
    /// The store's revision when it was read (etcd's header revision), for what the snapshot says.
    package let revision: Int64

    package init(location: SuiteLocation, version: Int64, exists: Bool, values: PrefDictionary, absent: [String] = [], whole: Bool,
                 revision: Int64) {
        self.location = location
        self.version = version
        self.exists = exists
        self.values = values
        self.absent = absent
        self.whole = whole
        self.revision = revision
    }
}

/// Told of the places a store reads (`SuiteBackend.observing(_:)`); called on the reading thread.
package protocol ReadObserver: Sendable {
    func observe(_ readings: [PlaceReading])
}
