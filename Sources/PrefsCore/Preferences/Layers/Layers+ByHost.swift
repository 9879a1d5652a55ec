/// The stored layers of a domain, as NSUserDefaults searches them: the suite for this host, the
/// suite, the global suite for this host, the global suite (the registered defaults come after).
/// "This host" is the one the store is on (`-currentHost`, `-host NAME`), else this machine
/// (`Environment.hostID`); with none, or a store that keeps no ByHost suites, the host layers are
/// left out. A file domain has only itself.
extension Layers {
    /// The domain's own file: what a change changes and `--stored` reads (its ByHost suite when the
    /// store is on a host).
    func ownLayer() throws -> Layer {
        let location = try store.location(of: domain)
        if case .byHost = location { return Layer(origin: .byHost, location: location) }
        return Layer(origin: .stored, location: location)
    }

    /// The stored layers, highest first.
    func storedLayers() throws -> [Layer] {
        let host = try store.readingHost()
        var layers: [Layer] = []
        switch domain {
        case .suite(let name):
            if let host { layers.append(Layer(origin: .byHost, location: .byHost(suite: name, host: host))) }
            layers.append(Layer(origin: .stored, location: .suite(name)))
            guard globalSuite else { break }
            if let host { layers.append(Layer(origin: .globalByHost, location: .byHost(suite: nil, host: host))) }
            layers.append(Layer(origin: .global, location: .global))
        case .global:
            if let host { layers.append(Layer(origin: .byHost, location: .byHost(suite: nil, host: host))) }
            layers.append(Layer(origin: .stored, location: .global))
        case .file, .standardInput:
            layers.append(try ownLayer())
        }
        return layers
    }
}
