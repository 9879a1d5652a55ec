import CPrefsSystem
import Glibc

/// The plain entries of the second part of a large XML plist skipped on another thread while the
/// streaming lookup reads the first part: a one-key read of a large suite then costs about half its
/// scan on each of two cores.
///
/// The thread starts at `start`, the first place after the split that looks like the end of a
/// top-level entry (a `>`, whitespace, then `<key>`), and skips plain entries from there as the
/// lookup would (`prefs_xml_skip_plain_entries`, which depends only on the bytes from where it
/// starts). An entry of the key asked for is a hole the lookup reads itself: the thread steps over it
/// and goes on. It stops at an entry that is not plain, `CF$UID` or the end. Whether `start` really
/// ends a top-level entry — it might be inside a nested dictionary, a comment or CDATA — only the
/// lookup knows when it gets there: if its own position lands exactly on `start`, it is, and the
/// lookup takes this thread's jumps (from where to where, over how many entries) instead of skipping
/// those entries itself; if the lookup passes `start`, they are dropped. Either way the answer is the
/// one-thread answer.
final class XMLPlistSpeculation {
    struct Jump {
        let from: Int
        let to: Int
        let entries: Int
    }

    /// The file offset of the next jump: first where the thread began (just after a `>`), then where
    /// each hole ends; `Int.max` when no jump is left.
    private(set) var next: Int
    private let reader: FileReader
    private let needle: [UInt8]
    private let capacity: Int
    private var thread: pthread_t?
    /// Set by the thread before it ends, read after it is joined; nil when a read failed.
    private var jumps: [Jump]? = []
    private var taken = 0

    /// Below this size a document is read on one thread: starting one costs more than it saves.
    static let worthwhile = 1 << 20

    /// Starts the thread, on another CPU, at the first entry end after `from`; nil when none is
    /// found in the 4 KiB there, or the thread cannot start — or there is no other CPU, where it
    /// would only take turns with this one, unless `evenOnOneCPU` (tests: the thread then runs too).
    init?(reader: FileReader, from: Int, needle: [UInt8], bufferSize: Int, evenOnOneCPU: Bool) {
        guard from > 0, from < reader.size, let window = try? reader.bytes(at: from, count: Swift.min(4096, reader.size - from)),
              let offset = XMLPlistSpeculation.entryEnd(in: window) else { return nil }
        next = from + offset
        self.reader = reader
        self.needle = needle
        capacity = Swift.max(bufferSize, 1024)
        var thread = pthread_t()
        let body: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            // Without a reference of its own: one held here would keep the object alive past its
            // owner, and its deinit (which joins this thread) would then run on this thread.
            Unmanaged<XMLPlistSpeculation>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.work() }
            return nil
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var started = prefs_start_thread_elsewhere(&thread, body, context)
        if started == -1 && evenOnOneCPU { started = pthread_create(&thread, nil, body, context) }
        guard started == 0 else { return nil }
        self.thread = thread
    }

    deinit { finish() }

    /// The offset just after the first `>` in `window` that whitespace and then `<key>` follow.
    static func entryEnd(in window: [UInt8]) -> Int? {
        var i = 0
        while i < window.count {
            if window[i] == UInt8(ascii: ">") {
                var j = i + 1
                while j < window.count, XMLPlistParser.isSpace(window[j]) { j += 1 }
                if j + 5 <= window.count, window[j] == UInt8(ascii: "<"), window[j + 1] == UInt8(ascii: "k"), window[j + 2] == UInt8(ascii: "e"),
                   window[j + 3] == UInt8(ascii: "y"), window[j + 4] == UInt8(ascii: ">") {
                    return i + 1
                }
            }
            i += 1
        }
        return nil
    }

    /// Waits for the thread (once).
    func finish() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// The jump from `next` (waiting for the thread first); nil when a read failed.
    func take() -> Jump? {
        finish()
        guard let jumps, taken < jumps.count else { return nil }
        let jump = jumps[taken]
        taken += 1
        next = taken < jumps.count ? jumps[taken].from : Int.max
        return jump
    }

    /// The skipping, through its own window of the file (a lookup's, which is never grown here):
    /// kept at least half full, so an entry longer than half of it ends the run, as one that is not
    /// plain does.
    private func work() {
        var stream = XMLPlistStreamLookup(reader, bufferSize: capacity)
        stream.jump(to: next)
        var from = next, count = 0
        var found: [Jump] = []
        do {
            while true {
                _ = try stream.have(capacity / 2)
                let before = stream.position
                count += needle.withUnsafeBufferPointer { stream.skipPlainEntries($0, before: nil) }
                guard stream.position == before else { continue }
                // Stopped: the entries so far are a jump. Over an entry of the key asked for (the one
                // plain entry skipped with no needle), the next begins.
                found.append(Jump(from: from, to: stream.position, entries: count))
                guard stream.skipPlainEntries(nil, before: nil, atMost: 1) == 1 else { break }
                from = stream.position
                count = 0
            }
            jumps = found
        } catch {
            jumps = nil
        }
    }
}
