extension EtcdClient {
    /// The `Authorization` header: none without credentials or when auth is not enabled; else the
    /// token, logging in (at `endpoint`) first when there is none.
    func authorization(for endpoint: EtcdEndpoint, deadline: Double) throws -> [(String, String)] {
        try authorization(for: EtcdAttempt(endpoint, deadline: deadline))
    }

    /// `authorization` in `attempt`, whose login may race (`exchange`: it changes nothing the
    /// user sees, so it may go to more than one member), and then sends the call to the member
    /// that answered it. A login is a raft request that every member applies, so the token is good
    /// at any member (one lagging behind may not know it yet: it says "invalid auth token", and
    /// the call logs in again).
    func authorization(for attempt: EtcdAttempt) throws -> [(String, String)] {
        guard let credentials else { return [] }
        if let token = state.withLock({ $0.token }) {
            return token.isEmpty ? [] : [("Authorization", token)]
        }
        let path = "/v3/auth/authenticate"
        let body = try EtcdRequestBody.encode([("name", .string(credentials.user)), ("password", .string(credentials.password))])
        let (status, response) = try exchange(attempt, path, body, headers: [], idempotent: true)
        let source = "etcd \(attempt.endpoint) \(path)"
        var token = ""
        if status == 200 {
            token = try EtcdMessage(json: response, source: source).string("token")
            // The token goes back in a header: it must not be able to end the header or the head.
            guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw PrefsError.malformed(source: source, format: .json, reason: "the token is not printable ASCII")
            }
        } else {
            let refusal = EtcdRefusal.from(status: status, body: response, source: source)
            // Credentials given to a cluster without auth are not needed: carry on without a token.
            guard refusal.message.contains("authentication is not enabled") else { throw refusal }
        }
        state.withLock { $0.token = token }
        return token.isEmpty ? [] : [("Authorization", token)]
    }

    func forgetToken() {
        state.withLock { $0.token = nil }
    }
}
