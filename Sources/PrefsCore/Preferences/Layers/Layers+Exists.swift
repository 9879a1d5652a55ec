extension Layers {
    /// Whether the domain exists as reads see it: a stored file, or registered defaults (the global
    /// suite's values alone do not make a suite). A layer that cannot be read is an error.
    package func exists() throws -> Bool {
        do {
            _ = try resolved()
            return true
        } catch let error as PrefsError where error == absent {
            return false
        }
    }
}
