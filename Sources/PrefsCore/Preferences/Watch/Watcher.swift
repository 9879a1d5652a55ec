/// The one watcher of what an application sees, for `prefs watch`, `Prefs.Suite.values(of:)` and
/// `Suite.changes(of:)`, whatever the store: its change feed (`ChangeFeed`) says when to look and
/// where to read; the watcher reads the watched keys' values through the domain's layers and
/// reports how they differ from the last ones read (`WatchedValues`). A write that leaves every
/// value equal reports nothing (unless `reportsEveryReading`).
package final class Watcher: ValueWatcher {
    let layers: Layers
    /// The watched keys as typed; nil: every top-level key.
    let keys: [(name: String, path: PrefKeyPath)]?
    let feed: any ChangeFeed
    package var reportsEveryReading = false

    package init(_ layers: Layers, keys: [(name: String, path: PrefKeyPath)]?, feed: any ChangeFeed) {
        self.layers = layers
        self.keys = keys
        self.feed = feed
    }

    /// The places whose changes can change what an application sees in `layers`, as a feed is
    /// asked to watch them (again after each change: a layer may appear): every layer's, every
    /// place a managed file may appear, and the schema's places while there is no schema (one
    /// written later changes the values).
    static func watchedLocations(of layers: Layers) throws -> [SuiteLocation] {
        var locations: [SuiteLocation] = []
        func add(_ location: SuiteLocation) {
            if !locations.contains(location) { locations.append(location) }
        }
        for layer in try layers.layers() {
            // A managed file is among every place one may appear (`managedPaths`).
            if case .managed = layer.origin, layer.location.isFile { continue }
            add(layer.location)
        }
        try layers.managedPaths().forEach { add(.file($0)) }
        if !layers.storedOnly, let name = layers.domain.registrationName {
            try layers.store.storage.schemaLocations(for: name).forEach(add)
        }
        return locations
    }

    /// The values at `point`; a point the backend has forgotten is read as its `latest`: what a
    /// later change shows is reported then instead.
    func values(at point: ChangePoint) throws -> WatchedValues.Reading {
        func read(_ backend: (any SuiteBackend)?) throws -> WatchedValues.Reading {
            guard let backend else { return try WatchedValues.read(layers, keys: keys) }
            return try WatchedValues.read(try layers.on(layers.store.reading(backend)), keys: keys)
        }
        do {
            return try read(point.backend)
        } catch let error as PrefsError where point.backend != nil && feed.hasForgotten(error) {
            return try read(point.latest)
        }
    }

    /// Reads the values where the feed starts, which `initial` receives (as changes from absent, for
    /// the keys that have a value; values that cannot be read then are an error); then, until
    /// `onChanges` returns false, `timeout` seconds pass, or `closedWhen` hangs up, reads them at
    /// each change the feed reports and hands what changed to `onChanges`. A read that fails later
    /// (a corrupt value) goes to `onError` once, and the watch goes on from the last values read;
    /// one the feed says ends the watch (an outage) is thrown.
    package func run(timeout: Double?, closedWhen output: Int32?, initial: ([WatchChange]) -> Bool,
                     onChanges: ([WatchChange]) -> Bool, onError: (PrefsError) -> Void) throws -> WatchStop {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        let everyReading = reportsEveryReading
        feed.wakesForHistory = everyReading
        var current: WatchedValues.Reading?
        var lastError: PrefsError?
        return try withoutActuallyEscaping(initial) { initial in
            try withoutActuallyEscaping(onChanges) { onChanges in
                try withoutActuallyEscaping(onError) { onError in
                    try feed.wait(until: deadline, stop: output) { point -> () -> Bool in
                        guard let before = current else {
                            let first = try values(at: point)
                            return {
                                current = first
                                return initial(WatchedValues.initial(first))
                            }
                        }
                        let read: Result<WatchedValues.Reading, PrefsError>
                        do {
                            read = .success(try values(at: point))
                        } catch let error as PrefsError {
                            if feed.endsTheWatch(error) { throw error }
                            read = .failure(error)
                        }
                        return {
                            switch read {
                            case .success(let now):
                                lastError = nil
                                let changes = WatchedValues.changes(from: current ?? before, to: now)
                                current = now
                                return (changes.isEmpty && !everyReading) || onChanges(changes)
                            case .failure(let error):
                                if error != lastError { onError(error) }
                                lastError = error
                                return true
                            }
                        }
                    }
                }
            }
        }
    }
}
