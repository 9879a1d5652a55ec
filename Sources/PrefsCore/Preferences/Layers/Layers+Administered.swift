/// The administrators' layers. Managed values are over everything: the suite's, then the global
/// suite's (which bind every suite, as macOS's forced global preferences do), each this machine's
/// managed file first (`$XDG_CONFIG_DIRS`, through `SuiteStore.administered` whatever the store: a user of
/// a fleet's store is still a user of this machine), then the store's own (a fleet's,
/// `SuiteBackend.managedLocations`). System defaults, this machine's files, are under the global
/// suite and over registered defaults.
extension Layers {
    /// The names whose managed values bind a suite filed as `name`: its own, then the global suite's.
    static func managedOwners(of name: String) -> [String] {
        let global = Domain.global.registrationName!
        return name == global ? [global] : [name, global]
    }

    /// The managed layers of a suite, highest first: for each owner, the machine's file when there
    /// is one among `directories` (read now), then the store's own places (read with the suite).
    func managedLayers(for name: String, directories: [String]) throws -> [Layer] {
        guard !store.storage.holdsManagedValues else { return [] }
        var layers: [Layer] = []
        for owner in Layers.managedOwners(of: name) {
            // The global suite's managed values answer in a suite but do not make it exist.
            let establishes = owner == name
            if let managed = try store.administered.managedValues(for: owner, in: directories) {
                layers.append(Layer(origin: .managed(managed.source), location: .file(managed.source), defaults: managed.values,
                                    establishes: establishes))
            }
            for location in try store.storage.managedLocations(for: owner) {
                layers.append(Layer(origin: .managed(store.describe(location)), location: location, establishes: establishes))
            }
        }
        return layers
    }

    /// The system-defaults layers of a suite: its files among `directories`, in order.
    func systemDefaultsLayers(for name: String, directories: [String]) -> [Layer] {
        store.administered.systemDefaultsFiles(for: name, in: directories).map { Layer(origin: .system($0), location: .file($0)) }
    }

    /// Every file that would hold the domain's managed values (the suite's and the global suite's,
    /// in every `$XDG_CONFIG_DIRS` directory), where one may appear.
    func managedPaths() throws -> [String] {
        guard !storedOnly, !store.storage.holdsManagedValues, let name = domain.registrationName else { return [] }
        return try Layers.managedOwners(of: name).flatMap { try store.administered.managedPaths(for: $0) }
    }
}

extension Layers.Layer {
    /// Whether an administrator set this layer (read as an administered file, never written).
    var isAdministered: Bool {
        switch origin {
        case .managed, .system: return true
        default: return false
        }
    }

    /// Whether the layer is an administrator's managed values.
    var isManaged: Bool {
        if case .managed = origin { return true }
        return false
    }
}
