import Foundation
import Glibc
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// Every observed and cached suite of a process shares the process's one inotify instance
/// (`SharedInotify`): a watch of a directory is counted per subscriber and removed from the kernel
/// with its last one, and each subscriber gets the events it asked for.
@Suite struct SharedInotifyTests {
    /// The descriptors of this process that are inotify instances.
    static func inotifyDescriptors() -> Set<Int32> {
        var found = Set<Int32>()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let descriptor = Int32(entry),
                  (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) == "anon_inode:inotify"
            else { continue }
            found.insert(descriptor)
        }
        return found
    }

    /// 20 suites, each in directories of its own, each observed (`values(of:)`, started) and
    /// cached (read once): the process holds one inotify instance more than before at most, the
    /// shared one. (Another test running meanwhile may wait for a lock through an instance of its
    /// own for a moment: the count is taken again until no such one is open.)
    @Test func twentyObservedAndCachedSuitesHoldOneInstance() async throws {
        let before = SharedInotifyTests.inotifyDescriptors()
        var fixtures: [LayerFixture] = [], observed: [Prefs.WatchIterator<Int>] = [], cached: [Prefs.Suite] = []
        for index in 0..<20 {
            let fixture = try LayerFixture(.disk)
            let suite = Prefs.Suite("com.example.shared", store: fixture.store)
            try suite.set(.retries, index)
            var values = try await suite.values(of: .retries).started().makeAsyncIterator()
            #expect(try await values.next() == index)
            let cache = suite.cachingReads()
            #expect(try cache[.retries] == index)
            #expect(cache.cache?.signalName == "kernel")
            fixtures.append(fixture)
            observed.append(values)
            cached.append(cache)
        }
        let shared = SharedInotify.shared.descriptor
        #expect(shared >= 0)
        var extra = Set<Int32>()
        for _ in 0..<100 {
            let now = SharedInotifyTests.inotifyDescriptors()
            #expect(now.contains(shared))
            extra = now.subtracting(before).subtracting([shared])
            if extra.isEmpty { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(extra.isEmpty, "inotify instances besides the shared one: \(extra.sorted())")
        // Every one of them still sees a change.
        for (index, fixture) in fixtures.enumerated() {
            try Prefs.Suite("com.example.shared", store: fixture.store).set(.retries, 100 + index)
            #expect(try await observed[index].next() == 100 + index)
            #expect(try cached[index][.retries] == 100 + index)
        }
    }

    /// Two observers of one suite (one watch descriptor, held twice) both get each change, and so
    /// does a cached copy; once one observer is dropped the other still does.
    @Test func twoObserversOfOneSuiteAndOneDropped() async throws {
        let fixture = try LayerFixture(.disk)
        let suite = Prefs.Suite("com.example.twice", store: fixture.store)
        try suite.set(.retries, 1)
        var first: Prefs.WatchIterator<Int>? = try await suite.values(of: .retries).started().makeAsyncIterator()
        var second = try await suite.values(of: .retries).started().makeAsyncIterator()
        let cached = suite.cachingReads()
        #expect(try await first?.next() == 1)
        #expect(try await second.next() == 1)
        #expect(try cached[.retries] == 1)
        // The suite's directory's watch is held by both observers and the cache (and the probe).
        let probe = try SharedInotify.shared.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        let wd = try probe.watch(fixture.root + "/config").get()
        #expect(SharedInotify.shared.holderCount(of: wd) == 4)
        try suite.set(.retries, 2)
        #expect(try await first?.next() == 2)
        #expect(try await second.next() == 2)
        #expect(try cached[.retries] == 2)
        // Dropping an observer stops its thread, which lets go of its share.
        first = nil
        var waits = 0
        while SharedInotify.shared.holderCount(of: wd) > 3 && waits < 1000 {
            try await Task.sleep(for: .milliseconds(5))
            waits += 1
        }
        #expect(SharedInotify.shared.holderCount(of: wd) == 3)
        try suite.set(.retries, 3)
        #expect(try await second.next() == 3)
        #expect(try cached[.retries] == 3)
        withExtendedLifetime(probe) {}
    }

    /// Places `name` in `directory` as writers of suites do: written as `name.new`, then renamed.
    /// Both events a subscriber here asks for, IN_CREATE of `name.new` and IN_MOVED_TO of `name`,
    /// are queued within the system call. (IN_CLOSE_WRITE is not: it comes when the file's last
    /// reference goes, which a process that another test forks meanwhile may hold for a while.)
    static func place(_ name: String, in directory: TemporaryDirectory) throws {
        let temporary = try directory.write(name + ".new", "x")
        #expect(rename(temporary, directory.file(name)) == 0)
    }

    /// Below the suites: one directory watched by two subscribers is one kernel watch; each gets the
    /// events it asked for; when one goes the other still gets them, and when the last goes the
    /// kernel's watch is removed (a new watch of the directory gets a new descriptor).
    @Test func aWatchIsRemovedWithItsLastSubscriber() throws {
        let directory = try TemporaryDirectory()
        let hub = SharedInotify.shared
        var creates: SharedInotify.Subscription? = try hub.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        var moves: SharedInotify.Subscription? = try hub.subscribe(mask: UInt32(IN_MOVED_TO), wakes: true)
        let wd = try creates!.watch(directory.path).get()
        #expect(try moves!.watch(directory.path).get() == wd)
        #expect(hub.holderCount(of: wd) == 2)
        try SharedInotifyTests.place("a", in: directory)
        #expect(creates!.take().map(\.name) == [Array("a.new".utf8)])
        #expect(moves!.take().map(\.name) == [Array("a".utf8)])
        #expect(creates!.take().isEmpty)
        // The waking subscriber's pipe is readable once events came, and no longer once taken.
        try SharedInotifyTests.place("b", in: directory)
        var ready = pollfd(fd: moves!.wake, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, -1) == 1)
        #expect(moves!.take().map(\.name) == [Array("b".utf8)])
        #expect(poll(&ready, 1, 0) == 0)
        _ = creates!.take()
        creates = nil
        #expect(hub.holderCount(of: wd) == 1)
        try SharedInotifyTests.place("c", in: directory)
        #expect(moves!.take().map(\.name) == [Array("c".utf8)])
        moves = nil
        #expect(hub.holderCount(of: wd) == 0)
        let again = try hub.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        let renewed = try again.watch(directory.path).get()
        #expect(renewed != wd, "the kernel's watch was removed with its last subscriber")
        try SharedInotifyTests.place("d", in: directory)
        #expect(again.take().map(\.name) == [Array("d.new".utf8)])
    }

    /// A watched directory removed: every subscriber of its watch is told (IN_DELETE_SELF, then
    /// IN_IGNORED as the kernel drops the watch), and no one holds the descriptor any longer.
    @Test func aWatchedDirectoryRemovedIsToldToEverySubscriber() throws {
        let directory = try TemporaryDirectory()
        let watched = directory.file("watched")
        try FileManager.default.createDirectory(atPath: watched, withIntermediateDirectories: true)
        let hub = SharedInotify.shared
        let one = try hub.subscribe(mask: UInt32(IN_CREATE | IN_DELETE_SELF), wakes: false)
        let other = try hub.subscribe(mask: UInt32(IN_CLOSE_WRITE), wakes: true)
        let wd = try one.watch(watched).get()
        #expect(try other.watch(watched).get() == wd)
        // rmdir(2), not a removal that opens the directory first: a process another test forks
        // meanwhile would share that descriptor, and the kernel tells of the removal only once the
        // directory's last reference goes.
        #expect(rmdir(watched) == 0)
        let toldOne = one.take().map(\.mask), toldOther = other.take().map(\.mask)
        #expect(toldOne.contains { $0 & UInt32(IN_DELETE_SELF) != 0 })
        #expect(toldOne.contains { $0 & UInt32(IN_IGNORED) != 0 })
        #expect(!toldOther.contains { $0 & UInt32(IN_DELETE_SELF) != 0 }, "only what it asked for, and what every subscriber gets")
        #expect(toldOther.contains { $0 & UInt32(IN_IGNORED) != 0 })
        #expect(hub.holderCount(of: wd) == 0)
        #expect(one.watches.isEmpty && other.watches.isEmpty)
    }

    /// The kernel's IN_Q_OVERFLOW (events were lost) goes to every subscriber, whatever it watches
    /// and asked for. (On an instance of the test's own: every subscriber of the shared one, other
    /// tests' too, would read everything again.)
    @Test func anOverflowGoesToEverySubscriber() throws {
        let one = try TemporaryDirectory(), two = try TemporaryDirectory()
        let hub = SharedInotify()
        let creates = try hub.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        let closes = try hub.subscribe(mask: UInt32(IN_CLOSE_WRITE), wakes: false)
        let idle = try hub.subscribe(mask: UInt32(IN_MOVED_TO), wakes: false)
        _ = try creates.watch(one.path).get()
        _ = try closes.watch(two.path).get()
        hub.deliverAsIfQueued(wd: -1, mask: UInt32(IN_Q_OVERFLOW))
        for subscriber in [creates, closes, idle] {
            #expect(subscriber.take().map(\.mask) == [UInt32(IN_Q_OVERFLOW)])
        }
        // An event of a watch goes to its subscribers only, as they asked.
        _ = try one.write("a", "x")
        #expect(creates.take().map(\.name) == [Array("a".utf8)])
        #expect(closes.take().isEmpty && idle.take().isEmpty)
    }

    /// A subscriber that does not take its events keeps a bounded number of them: beyond, one
    /// IN_Q_OVERFLOW stands for the lost ones (read everything again).
    @Test func aSubscriberThatDoesNotTakeGetsAnOverflow() throws {
        let directory = try TemporaryDirectory()
        let hub = SharedInotify.shared
        let slow = try hub.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        let busy = try hub.subscribe(mask: UInt32(IN_CREATE), wakes: false)
        _ = try slow.watch(directory.path).get()
        _ = try busy.watch(directory.path).get()
        var busySeen = 0
        for index in 0..<(SharedInotify.mostQueued + 100) {
            let descriptor = open(directory.file("f\(index)"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            #expect(descriptor >= 0)
            close(descriptor)
            if index % 100 == 0 { busySeen += busy.take().filter { $0.mask & UInt32(IN_CREATE) != 0 }.count }
        }
        busySeen += busy.take().filter { $0.mask & UInt32(IN_CREATE) != 0 }.count
        #expect(busySeen == SharedInotify.mostQueued + 100, "one taking often loses none")
        let events = slow.take()
        #expect(events.count <= SharedInotify.mostQueued)
        #expect(events.contains { $0.mask & UInt32(IN_Q_OVERFLOW) != 0 })
    }
}
