import Glibc

/// The file store's change feed: inotify on the directories of the watched places' files (a
/// suite's, the global suite's, the registered-defaults and managed files), which says when the
/// values an application sees may have changed, whoever changed them.
///
/// It watches the *directories* — an atomic rename replaces a file's inode, so
/// watching the file itself would go deaf after the first write — for a file closed after writing,
/// renamed in or out, or deleted; a directory that does not exist yet is waited for through its
/// nearest existing ancestor. A watched file renamed into place (prefs' atomic write) or closed by
/// its writer is looked at once; other bursts of events are gathered until the directory has been
/// quiet for a moment. A file
/// being rewritten in place (truncated, then written: `cp`, an editor, UserDefaults) is not reported
/// until its writer closes it, so a half-written file is never taken for a change: after each look the
/// kernel is asked whether a watched file is open for writing (see `isOpenForWriting`), and if one is,
/// or an event came during the look, nothing is reported and the watcher looks again once the
/// writers have closed the files and the directories are quiet. No polling: between writes the
/// watch sleeps in `poll`. Its watches are a share of the process's one inotify instance
/// (`SharedInotify`), whose reader thread wakes it when events come for it. Asked to wake for
/// histories (`wakesForHistory`, for `Suite.changes(of:)`), it also watches the histories of the
/// suites that keep one, and a version appended to a log is looked at at once like a watched file.
package final class InotifyFeed: ChangeFeed {
    /// The places watched, asked again after each change.
    let locations: () throws -> [SuiteLocation]
    /// The file store, which knows the places' files and histories.
    let fileStore: FileSuiteStorage
    /// Its share of the process's inotify instance, from the start of `wait` (a feed asked only for
    /// its `readCacheSignal` takes none).
    private var inotify: SharedInotify.Subscription!
    /// The base names of every watched place's file (and symlink target), as bytes; set by `updateWatches`.
    private var watchedNames = Set<[UInt8]>()
    /// Every watched place's file, and the base name of the file it leads to (through a symlink), which
    /// its events carry; set by `updateWatches`.
    private(set) var layerFiles: [(path: String, name: [UInt8])] = []
    /// Watched files modified in place (or found open for writing) and not yet closed by their
    /// writer (by name).
    private var beingWritten = Set<[UInt8]>()
    package var wakesForHistory = false

    /// How long a directory must be quiet before the values are read again, and the longest a burst
    /// of events may delay that.
    static let quietMilliseconds: Int32 = 15
    static let longestBurstMilliseconds = 250.0
    /// How long a writer that keeps a file open mid-write (or just open for writing) is waited for
    /// before reading anyway.
    static let longestWriteMilliseconds = 5_000.0

    package init(_ locations: @escaping () throws -> [SuiteLocation], files: FileSuiteStorage) {
        self.locations = locations
        self.fileStore = files
    }

    /// The events of the places' files that the kernel queued since the last read (`KernelChangeQueue`,
    /// which takes a share of the same inotify instance, without a wake of its own).
    package func readCacheSignal(suite: String) -> (any ChangeSignal)? {
        let (locations, files) = (self.locations, fileStore)
        return KernelChangeQueue(suite: suite, fileSystem: files.fileSystem, paths: { try locations().compactMap { try files.filePath(of: $0) } })
    }

    /// The events it asks for.
    static let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF
        | IN_MOVE_SELF)

    /// Sets up the watches and looks at once (`ChangeFeed.wait`); then, until a report says stop,
    /// `deadline` passes, or `output` reports an error or hang-up, waits for changes and looks at
    /// each, reporting what the look read unless a watched file was being written meanwhile.
    package func wait(until deadline: Double?, stop output: Int32?, look: (ChangePoint) throws -> () -> Bool) throws -> WatchStop {
        if inotify == nil { inotify = try SharedInotify.shared.subscribe(mask: InotifyFeed.mask, wakes: true) }
        try updateWatches()
        guard try look(.now)() else { return .handlerStopped }
        var pending = false
        while true {
            switch try waitForEvents(deadline: deadline, output: output, pending: pending) {
            case .timedOut: return .timedOut
            case .outputClosed: return .outputClosed
            case .quiet: pending = false
            case .changed(let waitedFor):
                try updateWatches()
                let report = try look(.now)
                // A watched file open for writing now may have been read half-written (the kernel
                // shows a truncation before it queues the event), and one written in place during
                // the read has its events queued by now: either way nothing from this read is
                // reported; look again once the writers have closed the files and all is quiet.
                // (Writers waited for long enough already are not waited for again.)
                let writers = layerFilesOpenForWriting(ignoring: waitedFor)
                beingWritten.formUnion(writers.names)
                let during = eventsDuringRead(lateEventsPossible: writers.unknown)
                pending = during.relevant || !writers.names.isEmpty
                if during.modifiedInPlace || !writers.names.isEmpty { continue }
                if !report() { return .handlerStopped }
            }
        }
    }

    /// Whether a file name is a suite's history's: its log (`VersionLog`), or a version file an
    /// older prefs wrote (`NUMBER.plist`, 20 digits).
    static func isVersionName(_ name: [UInt8]) -> Bool {
        name.elementsEqual(VersionLog.name.utf8)
            || name.count == 26 && name[..<20].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && name[20...].elementsEqual(".plist".utf8)
    }

    /// The directories of every watched place's file (and of a symlinked suite's target), each watched where
    /// it exists, or through its nearest existing ancestor until it does; watches no longer needed
    /// (an ancestor once the directory is there) are let go.
    func updateWatches() throws {
        var wanted = Set<String>()
        var names = Set<[UInt8]>()
        var files: [(path: String, name: [UInt8])] = []
        let places = try locations()
        for file in try places.compactMap({ try fileStore.filePath(of: $0) }) {
            let target = try? fileStore.fileSystem.resolvingSymlinks(file)
            for path in [file, target].compactMap({ $0 }) {
                let (directory, name) = splitPath(path)
                wanted.insert(directory)
                names.insert(Array(name.utf8))
            }
            files.append((file, Array(splitPath(target ?? file).name.utf8)))
        }
        if wakesForHistory {
            // The histories of the suites that keep one: a version is appended to the log right
            // after its change's suite file is renamed in.
            for place in places {
                if let directory = try fileStore.historyDirectory(of: place) { wanted.insert(directory) }
            }
        }
        watchedNames = names
        layerFiles = files
        var watches = Set<Int32>()
        for directory in wanted {
            var place = directory
            while !place.isEmpty {
                // Adding a watch again is harmless: it returns the same descriptor.
                switch inotify.watch(place) {
                case .success(let wd):
                    watches.insert(wd)
                    place = ""
                case .failure(let failure):
                    let code = failure.code
                    guard code == ENOENT || code == ENOTDIR || code == EACCES else { throw InotifyFeed.watchError(code, path: place) }
                    let parent = splitPath(place).directory
                    place = parent == place ? "" : parent
                }
            }
        }
        inotify.keepOnly(watches)
    }

    /// `changed`: with the files whose writers were waited for as long as they may be, in vain.
    enum Wake { case changed(waitedFor: Set<[UInt8]>), quiet, timedOut, outputClosed }

    /// Sleeps until a watched directory changes (then drains the burst), the deadline passes, or
    /// the output is closed. `pending`: a change already seen starts the burst.
    func waitForEvents(deadline: Double?, output: Int32?, pending: Bool) throws -> Wake {
        var burstStart: Double? = pending ? MonotonicClock.now() : nil
        var changed = pending
        while true {
            var fds = [pollfd(fd: inotify.wake, events: Int16(POLLIN), revents: 0)]
            if let output { fds.append(pollfd(fd: output, events: 0, revents: 0)) }
            var timeout: Int32 = -1
            if let start = burstStart {
                // While a file is open mid-write, sleep until its close (or the longest wait) instead.
                let writeLeft = InotifyFeed.longestWriteMilliseconds - (MonotonicClock.now() - start) * 1000
                timeout = beingWritten.isEmpty ? InotifyFeed.quietMilliseconds : Int32(max(Double(InotifyFeed.quietMilliseconds), writeLeft))
            }
            if let deadline {
                let left = Int32(max(0, min(Double(Int32.max), (deadline - MonotonicClock.now()) * 1000)))
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw PrefsError.cannotRead(path: "inotify", errno: errno)
            }
            if fds.count > 1 && fds[1].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .outputClosed }
            if ready == 0 || fds[0].revents == 0 {
                if let deadline, MonotonicClock.now() >= deadline { return .timedOut }
                if let start = burstStart {
                    // Quiet, but a file is still open mid-write: wait for its close (or give up waiting).
                    if !beingWritten.isEmpty && (MonotonicClock.now() - start) * 1000 < InotifyFeed.longestWriteMilliseconds { continue }
                    let waitedFor = beingWritten
                    beingWritten.removeAll()
                    return changed ? .changed(waitedFor: waitedFor) : .quiet
                }
                continue
            }
            let drained = drainEvents()
            if drained.relevant { changed = true }
            // A layer file renamed into place, or closed by its writer, is whole: read it now, not
            // after the quiet period (more events during the read make it read again, as ever).
            if drained.completed && beingWritten.isEmpty { return .changed(waitedFor: []) }
            let now = MonotonicClock.now()
            if burstStart == nil { burstStart = now }
            if let start = burstStart, beingWritten.isEmpty, (now - start) * 1000 >= InotifyFeed.longestBurstMilliseconds {
                return changed ? .changed(waitedFor: []) : .quiet
            }
        }
    }

    /// The events queued while the values were read. When the kernel would not say whether some
    /// layer file is open for writing (`lateEventsPossible`), also those that come within the quiet
    /// period: the most that can be done then for an event queued late.
    func eventsDuringRead(lateEventsPossible: Bool) -> (relevant: Bool, modifiedInPlace: Bool) {
        let seen = drainEvents()
        guard lateEventsPossible else { return (seen.relevant, seen.modifiedInPlace) }
        var fds = [pollfd(fd: inotify.wake, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 1, InotifyFeed.quietMilliseconds) > 0 {
            let late = drainEvents()
            return (seen.relevant || late.relevant, seen.modifiedInPlace || late.modifiedInPlace)
        }
        return (seen.relevant, seen.modifiedInPlace)
    }

    /// Reads the pending events: whether one concerns a watched file (or the watches themselves),
    /// whether a watched file was modified in place, and whether the last event of a watched file
    /// was its completion (renamed into place, or closed after writing).
    func drainEvents() -> (relevant: Bool, modifiedInPlace: Bool, completed: Bool) {
        let names = watchedNames
        var relevant = false, modifiedInPlace = false, completed = false
        for event in inotify.take() {
            let mask = event.mask
            if mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
                // Events were lost, or a watched directory went: read again, watch again.
                relevant = true
                completed = false
            } else if mask & UInt32(IN_ISDIR) != 0 {
                // A directory appearing may be one a watched file lives in.
                relevant = true
                completed = false
            } else if names.contains(event.name) {
                if mask & UInt32(IN_MODIFY) != 0 {
                    beingWritten.insert(event.name)
                    modifiedInPlace = true
                } else {
                    beingWritten.remove(event.name)
                }
                relevant = true
                completed = mask & UInt32(IN_MOVED_TO | IN_CLOSE_WRITE) != 0
            } else if wakesForHistory && mask & UInt32(IN_MOVED_TO | IN_MODIFY) != 0 && InotifyFeed.isVersionName(event.name) {
                // A version appended to a history's log (IN_MODIFY, as the write ends), or the log
                // rewritten whole (renamed in).
                relevant = true
                completed = true
            }
        }
        return (relevant, modifiedInPlace, completed)
    }
}
