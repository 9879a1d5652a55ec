import Testing
@testable import PrefsCore

/// `EtcdClient.parse(url:)` and `prefixEnd`.
@Suite struct EtcdURLTests {
    static let good: [(String, [String], String)] = [
        ("etcd://127.0.0.1:2379", ["127.0.0.1:2379"], "prefs"),
        ("etcd://10.0.0.1:2379,10.0.0.2:22379,etcd-3.example.com:1/team/app", ["10.0.0.1:2379", "10.0.0.2:22379", "etcd-3.example.com:1"], "team/app"),
        ("ETCD://localhost:65535/p", ["localhost:65535"], "p"),
        ("etcd://[::1]:2379,[fe80::1:2]:2380/x", ["[::1]:2379", "[fe80::1:2]:2380"], "x"),
        ("etcd://host_name:2379,host_name:2379", ["host_name:2379"], "prefs"),
        ("etcd://h:1/ünïcode-prefix.d", ["h:1"], "ünïcode-prefix.d"),
    ]

    @Test(arguments: good)
    func goodURLs(url: String, endpoints: [String], prefix: String) throws {
        let parsed = try EtcdClient.parse(url: url)
        #expect(parsed.endpoints.map(\.description) == endpoints)
        #expect(parsed.prefix == prefix)
    }

    @Test func anIPv6HostIsKeptWithoutBrackets() throws {
        #expect(try EtcdClient.parse(url: "etcd://[::1]:2379").endpoints == [EtcdEndpoint(host: "::1", port: 2379)])
    }

    static let bad = [
        "", "etcd://", "etcd:/h:1", "http://h:1", "h:1", "etcd://h", "etcd://h:", "etcd://h:0", "etcd://h:65536", "etcd://h:12a",
        "etcd://h:+1", "etcd://h:1 ", "etcd://:1", "etcd://h:1/", "etcd://h:1//x", "etcd://h:1/a//b", "etcd://h:1/a/",
        "etcd://user@h:1", "etcd://user:pw@h:1", "etcd://h:1?x=1", "etcd://h:1#f", "etcd://h:1,,h:2", "etcd://h:1,",
        "etcd://[::1]/x", "etcd://[zz::]:1", "etcd://[::1:1", "etcd://[]:1", "etcd://h h:1", "etcd://-h:1", "etcd://h..x:1",
        "etcd://h\\x:1", "etcd://h%41:1", "etcd://h:1/p\u{0}",
    ]

    @Test(arguments: bad)
    func badURLsAreUsageErrorsNamingTheURL(url: String) {
        do {
            let parsed = try EtcdClient.parse(url: url)
            Issue.record("accepted: \(parsed)")
        } catch PrefsError.usage(let message) {
            #expect(message.contains("'\(url)'"))
            #expect(PrefsError.usage(message).exitStatus == .usage)
        } catch {
            Issue.record("not a usage error: \(error)")
        }
    }

    /// The byte-wise reading of the usual URLs (`parseSimple`, which `parse` tries first) gives
    /// exactly what the full one gives, and leaves every other URL to it: each good and bad URL
    /// above, and more near the edges of what it takes.
    @Test func theQuickReadingAgreesWithTheFullOne() throws {
        let more = [
            "ETCDS://H.Example.COM:00080/A/b", "etcd://h:1,h:1,H:1/x", "etcd://_h-1.x_:65535/a.b/c-d", "etcd://h.:1", "etcd://1.2.3.4:5",
            "etcds://h:1", "etcds:/", "etcds://", "etcd://h:1/\u{7F}", "etcd://h:1/a b", "etcd://h:1/ä", "etcd://h:99999", "etcd://h:1:2",
            "etcd://h:1,[::1]:2", "etcd://h:1/x/", "etcd://h:1/x//y", "etcd://h:1,", "etcd://,h:1", "etcd://h.-x:1", "etcd://h-.x:1",
            "etcd://.h:1", "etcd://h:1\u{0}", "etcd://h:\u{661}", "etcd://h:1/p?q", "etcdx://h:1", "etcd//h:1",
        ]
        for url in EtcdURLTests.good.map(\.0) + EtcdURLTests.bad + more {
            let full = Result { try EtcdClient.parseFull(url: url) }
            guard let quick = EtcdClient.parseSimple(url) else {
                #expect(url.utf8.contains { $0 >= 0x7F || $0 <= 0x20 } || url.contains("[") || (try? full.get()) == nil, "\(url): left to the full reading")
                continue
            }
            let expected = try #require(try? full.get(), "\(url): the quick reading took what the full one refuses")
            #expect(quick.endpoints == expected.endpoints && quick.prefix == expected.prefix && quick.secure == expected.secure, "\(url)")
        }
    }

    @Test(arguments: [
        ([UInt8](), [UInt8]([0])),
        ([0x61], [0x62]),
        ([0x61, 0x62], [0x61, 0x63]),
        ([0x61, 0xFF], [0x62]),
        ([0x61, 0xFF, 0xFF], [0x62]),
        ([0xFF, 0xFF], [0]),
        ([0x00], [0x01]),
        ([0x2F, 0x00, 0xFE], [0x2F, 0x00, 0xFF]),
    ])
    func prefixEnd(prefix: [UInt8], end: [UInt8]) {
        #expect(EtcdClient.prefixEnd(prefix) == end)
    }

    /// Against etcd: the range [prefix, prefixEnd(prefix)) holds exactly the keys that start with the
    /// prefix, even ones whose next bytes are 0xFF, and not the keys just around it.
    @Test func prefixEndBoundsARangeExactly() throws {
        let client = try SharedEtcd.client()
        let base = uniquePrefix()
        let prefix = base + [0x41, 0xFF]
        let inside = [prefix, prefix + [0x00], prefix + [0xFF, 0xFF, 0xFF], prefix + Array("z".utf8)]
        let outside = [base + [0x41, 0xFE, 0xFF], base + [0x42], base + [0x41], base + [0x42, 0x00]]
        for key in inside + outside { try client.put(key, [1]) }
        let found = try client.range(prefix, rangeEnd: EtcdClient.prefixEnd(prefix)).kvs.map(\.key)
        #expect(found == inside.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
