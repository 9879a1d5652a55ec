import Testing
@testable import PrefsCore

/// How long one range request takes over loopback, in-process: on an open connection, and from a
/// new client (connect included). Printed for the record; the bounds only catch a gross regression
/// (a Nagle delay of 40 ms, a connection per request) on a loaded test machine.
@Suite(.blocking) struct EtcdLatencyTests {
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted[sorted.count / 2]
    }

    @Test func oneRangeRequestOverLoopback() throws {
        let endpoints = try SharedEtcd.cluster().endpoints
        let key = uniquePrefix()
        let client = EtcdClient(endpoints: endpoints, timeout: 5)
        try client.put(key, Array(repeating: 0x61, count: 100))
        var warm: [Double] = []
        for _ in 0..<300 {
            warm.append(try seconds { _ = try client.range(key) })
        }
        #expect(client.state.withLock { $0.connectionsOpened } == 1)
        var cold: [Double] = []
        for _ in 0..<100 {
            cold.append(try seconds { _ = try EtcdClient(endpoints: endpoints, timeout: 5).range(key) })
        }
        let (warmMedian, coldMedian) = (EtcdLatencyTests.median(warm), EtcdLatencyTests.median(cold))
        print(String(format: "etcd range over loopback: median %.0f µs on an open connection, %.0f µs from a new client (min %.0f / %.0f µs)",
                     warmMedian * 1e6, coldMedian * 1e6, warm.min()! * 1e6, cold.min()! * 1e6))
        #expect(warmMedian < 0.01)
        #expect(coldMedian < 0.02)
    }

    @Test func startingThreeMembers() throws {
        var cluster: EtcdCluster?
        let took = try seconds { cluster = try EtcdCluster(members: 3) }
        print(String(format: "3 etcd members started and healthy in %.2f s", took))
        #expect(took < 5)
        #expect(cluster?.members.count == 3)
    }
}
