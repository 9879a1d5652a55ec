/// What a store that keeps no ByHost suites says (a store opts in by implementing both).
extension SuiteStorage {
    public var keepsByHostSuites: Bool { false }

    public func suiteNames(onHost host: String) throws -> SuiteListing {
        throw PrefsError.usage(SuiteStore.noByHostSuites)
    }
}
