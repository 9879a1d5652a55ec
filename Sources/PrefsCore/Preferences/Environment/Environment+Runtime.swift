extension Environment {
    /// `$XDG_RUNTIME_DIR` when it holds an absolute path: where this user's short-lived state is
    /// kept (the etcd store's endpoint health and TLS sessions, as `RuntimeFile`s, which also check
    /// that it is the user's alone). nil when unset, relative or not UTF-8: there is no fallback,
    /// since a place others can write to (/tmp) could be planted with another's file. Never an
    /// error: what is kept there only saves time.
    package func runtimeDirectory() -> String? {
        guard let value = try? self["XDG_RUNTIME_DIR"], value.hasPrefix("/") else { return nil }
        return value
    }
}
