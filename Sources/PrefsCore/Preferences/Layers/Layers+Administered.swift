/// The administrator's layers: managed values over everything, system defaults under the global
/// suite (`SuiteStorage.managedValues(for:)`, `managedPaths(for:)`, `systemDefaultsLocations(for:)`).
extension Layers {
    /// The managed layer of a suite, when it has managed values.
    func managedLayer(for name: String) throws -> [Layer] {
        guard let managed = try store.storage.managedValues(for: name) else { return [] }
        return [Layer(origin: .managed(managed.source), location: .file(managed.source), defaults: managed.values)]
    }

    /// Every file that would hold the domain's managed values, where the store keeps them in files.
    func managedPaths() throws -> [String] {
        guard !storedOnly, let name = domain.registrationName else { return [] }
        return try store.storage.managedPaths(for: name)
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
}
