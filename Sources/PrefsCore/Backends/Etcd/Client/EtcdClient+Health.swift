import Synchronization

/// What the clients of an endpoint list learn of its endpoints (`EtcdEndpointHealth`): kept for the
/// process, and in the client's `healthFile` for the commands after it.
extension EtcdClient {
    /// The endpoints that failed lately, per endpoint list, for every client in the process.
    static let failures = Mutex<[[EtcdEndpoint]: [EtcdEndpoint: EtcdEndpointHealth.Failure]]>([:])

    /// What the process knows of the endpoints now; the health file is read first, once per client
    /// (what the process learnt itself wins: the endpoint that answered, and the later failure).
    func health() -> EtcdEndpointHealth {
        let now = EtcdEndpointHealth.now()
        if let healthFile, state.withLock({ $0.savedHealth == nil }) {
            let saved = healthFile.load(endpoints).current(at: now)
            state.withLock { $0.savedHealth = saved }
            if let answered = saved.answered { EtcdClient.lastAnswered.withLock { if $0[endpoints] == nil { $0[endpoints] = answered } } }
            EtcdClient.failures.withLock { $0[endpoints, default: [:]].merge(saved.failed) { $0.time >= $1.time ? $0 : $1 } }
        }
        let answered = EtcdClient.lastAnswered.withLock { $0[endpoints] }
        let failed = EtcdClient.failures.withLock { $0[endpoints] ?? [:] }
        return EtcdEndpointHealth(answered: answered, failed: failed).current(at: now)
    }

    /// The endpoints in the order to try them: the last one that answered first, those that failed
    /// lately after all the others.
    func rotation() -> [EtcdEndpoint] { health().order(endpoints) }

    /// `rotation`, and the endpoints that failed lately: a race starts them only when every other
    /// one has failed, never beside one that is merely slow (`EtcdAttempt.failing`). None when all
    /// failed: then nothing says which to prefer.
    func plan() -> (order: [EtcdEndpoint], failing: Set<EtcdEndpoint>) {
        let health = health()
        let failing = Set(endpoints.filter { health.failed[$0] != nil })
        return (health.order(endpoints), failing.count < endpoints.count ? failing : [])
    }

    /// `endpoint` answered.
    func remember(_ endpoint: EtcdEndpoint) {
        EtcdClient.lastAnswered.withLock { $0[endpoints] = endpoint }
        // Looked up first: removing from a list not there would set up the table (its generic
        // metadata, about 36 K instructions) to remove nothing.
        EtcdClient.failures.withLock { if $0[endpoints]?[endpoint] != nil { _ = $0[endpoints]?.removeValue(forKey: endpoint) } }
    }

    /// `endpoint` failed with `error`.
    func noteFailure(_ endpoint: EtcdEndpoint, _ error: Error) {
        let failure = EtcdEndpointHealth.Failure(time: EtcdEndpointHealth.now(), kind: EtcdEndpointHealth.kind(of: error))
        EtcdClient.failures.withLock { $0[endpoints, default: [:]][endpoint] = failure }
    }

    /// Writes the health file when what the process knows differs from what it holds, and either
    /// says more than the URL does (a failure, or another endpoint to start with): healthy
    /// endpoints whose first answers cost the file store's user nothing, not even a directory.
    func saveHealth() {
        guard let healthFile else { return }
        let now = health()
        let saved = state.withLock { $0.savedHealth }?.current(at: EtcdEndpointHealth.now())
        func telling(_ health: EtcdEndpointHealth) -> Bool { !health.failed.isEmpty || (health.answered ?? endpoints[0]) != endpoints[0] }
        guard now != saved, telling(now) || saved.map(telling) == true else { return }
        healthFile.save(now)
        state.withLock { $0.savedHealth = now }
    }
}
