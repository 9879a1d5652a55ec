import Glibc

/// What a client knows of the endpoints of its URL from the calls before: the one that answered
/// last, and those that failed in the last `memory` seconds — refused the connection, did not
/// answer in time (a member stopped or cut off takes connections and answers nothing), broke it
/// off, or were no member able to serve. A call starts with the one that answered last and tries
/// the ones that failed after every other one: never skips them, so a cluster whose other members
/// are gone is still reached.
struct EtcdEndpointHealth: Equatable, Sendable {
    /// How long a failure is remembered: long enough that the commands of a loop or a script that
    /// follow one another do not each wait on the same dead member, short enough that a member back
    /// from a restart gets its share of requests again within a minute.
    static let memory: Double = 30

    struct Failure: Equatable, Sendable {
        /// When (CLOCK_REALTIME seconds, comparable across processes).
        var time: Double
        /// How, in one word: `refused`, `timeout` or `failed`.
        var kind: String
    }

    var answered: EtcdEndpoint?
    var failed: [EtcdEndpoint: Failure] = [:]

    /// Seconds since the epoch, as the failures' times are kept.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The failures not yet forgotten at `now`: at most `memory` seconds old, and none from the
    /// future (a clock set back) beyond a second.
    func current(at now: Double) -> EtcdEndpointHealth {
        var kept = self
        kept.failed = failed.filter { now - $0.value.time <= EtcdEndpointHealth.memory && $0.value.time <= now + 1 }
        return kept
    }

    /// `endpoints` in the order to try them: from the one that answered last on, round the list,
    /// with the failed ones (in that order) after all the others.
    func order(_ endpoints: [EtcdEndpoint]) -> [EtcdEndpoint] {
        var rotated = endpoints
        if let answered, let start = endpoints.firstIndex(of: answered) {
            rotated = Array(endpoints[start...] + endpoints[..<start])
        }
        return rotated.filter { failed[$0] == nil } + rotated.filter { failed[$0] != nil }
    }

    /// The one word a failure is remembered by.
    static func kind(of error: Error) -> String {
        switch error {
        case NetworkFailure.timedOut: return "timeout"
        case let error where EtcdClient.isRefusal(error): return "refused"
        default: return "failed"
        }
    }

    // MARK: As text

    static let header = "prefs etcd endpoints 1"
    /// The most a file may hold: a few lines per endpoint.
    static let sizeLimit = 8192

    /// The text of the file: the header, `answered ENDPOINT`, then `failed ENDPOINT TIME KIND` lines.
    var text: String {
        var lines = [EtcdEndpointHealth.header]
        if let answered { lines.append("answered \(answered)") }
        for (endpoint, failure) in failed.sorted(by: { $0.value.time < $1.value.time }) {
            lines.append("failed \(endpoint) \(failure.time) \(failure.kind)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The health `text` says of `endpoints`; nil when it is not such a text, or names an endpoint
    /// that is not one of them: a file that is not what prefs writes is ignored whole.
    init?(text: [UInt8], endpoints: [EtcdEndpoint]) {
        guard text.count <= EtcdEndpointHealth.sizeLimit, let string = String(validating: text, as: UTF8.self),
            string.hasSuffix("\n")
        else { return nil }
        let lines = string.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(EtcdEndpointHealth.header) else { return nil }
        func endpoint(_ text: Substring) -> EtcdEndpoint? { endpoints.first { $0.description == text } }
        for line in lines.dropFirst() {
            let words = line.split(separator: " ", omittingEmptySubsequences: false)
            switch (words.first, words.count) {
            case ("answered", 2):
                guard answered == nil, let named = endpoint(words[1]) else { return nil }
                answered = named
            case ("failed", 4):
                guard let named = endpoint(words[1]), failed[named] == nil, let time = Double(words[2]), time.isFinite,
                    ["refused", "timeout", "failed"].contains(words[3])
                else { return nil }
                failed[named] = Failure(time: time, kind: String(words[3]))
            default:
                return nil
            }
        }
    }

    init(answered: EtcdEndpoint? = nil, failed: [EtcdEndpoint: Failure] = [:]) {
        self.answered = answered
        self.failed = failed
    }
}
