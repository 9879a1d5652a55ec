import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// A fleet's managed values on a real cluster with auth on: the administrator writes them to the
/// store at `PREFIX/.managed`; users, whose role may only read that prefix, see them win and cannot
/// change them, through prefs (77, refused before anything is sent) or around it (etcd refuses, 77).
@Suite struct EtcdManagedProcessTests {
    @Test func usersReadManagedValuesAndCannotChangeThem() throws {
        let cluster = try EtcdCluster(members: 1)
        let box = try EtcdTests.Box(cluster)
        let prefix = String(box.url.split(separator: "/").last!)
        let admin = ["PREFS_STORE": box.url + "/.managed"]
        try #require(box.prefs("write", "app", "mine", "-int", "1", "locked", "user").status == 0)
        try #require(box.prefs("write", "app", "locked", "policy", environment: admin).status == 0)
        // The role the README and the man page give users.
        try cluster.etcdctl("role", "add", "prefs-user")
        try cluster.etcdctl("role", "grant-permission", "prefs-user", "readwrite", prefix + "/", prefix + "/.managed/")
        try cluster.etcdctl("role", "grant-permission", "prefs-user", "read", "--prefix=true", prefix + "/.managed/")
        try cluster.etcdctl("role", "grant-permission", "prefs-user", "readwrite", prefix + "/.managed0", prefix + "0")
        try cluster.etcdctl("user", "add", "ada:ada-password")
        try cluster.etcdctl("user", "grant-role", "ada", "prefs-user")
        try cluster.enableAuth(rootPassword: "root-password")
        let ada = ["PREFS_ETCD_USER": "ada", "PREFS_ETCD_PASSWORD": "ada-password"]
        let source = box.url + "/.managed/app"
        let read = try box.prefs("read", "app", "locked", "--origin", environment: ada)
        #expect(read.status == 0 && read.outputText == "managed:\(source)\tpolicy\n", "\(read.error)")
        #expect(try box.prefs("read", "--stored", "app", "locked", environment: ada).outputText == "user\n")
        let refused = try box.prefs("write", "app", "locked", "x", environment: ada)
        #expect(refused.status == 77 && refused.error == "prefs: app: locked is managed by the administrator (\(source)) and cannot be changed; nothing changed\n")
        #expect(try box.prefs("delete", "app", "locked", environment: ada).status == 77)
        #expect(try box.prefs("write", "app", "mine", "-int", "2", environment: ada).status == 0)
        let around = try box.prefs("write", "app", "locked", "mine", environment: ada.merging(admin) { $1 })
        #expect(around.status == 77, "etcd refuses a user's write to the managed prefix: \(around.error)")
        #expect(try box.prefs("read", "app", "locked", environment: ada).outputText == "policy\n")
    }
}
