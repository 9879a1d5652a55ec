import Foundation
import Testing
import PrefsTestSupport
@testable import PrefsCore

/// One backend made ready for a scenario: a `SuiteStore` over it, the directories the XDG variables
/// point to (registered defaults of packages and an administrator's files are files whatever the
/// store), and a way to look at and damage what the backend holds underneath the façade, all asked
/// of the backend's conformer (`ContractBackend`), never of which backend it is.
///
/// Every fixture is fresh: its own in-memory file system, temporary directory, `InMemoryEtcd`, or
/// prefix in the real cluster the whole test process shares (`SharedEtcd`), so scenarios run in
/// parallel.
final class ContractStore: @unchecked Sendable {
    let backend: Backend
    let under: any ContractBackend
    var fileSystem: any FileSystem { under.fileSystem }
    /// Where `config/`, `data/`, `pkg/` (packages' registered defaults) and `xdg/` (an
    /// administrator's files) are.
    var root: String { under.root }
    let environment: Environment
    let store: SuiteStore

    /// `variables` are set beside the fixture's own environment (`PREFS_HISTORY`, say).
    init(_ backend: Backend, variables: [String: String] = [:]) throws {
        self.backend = backend
        under = try backend.make()
        let root = under.root
        try under.fileSystem.createDirectory(root, mode: 0o755)
        var environment = Environment(["XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data", "XDG_DATA_DIRS": root + "/pkg",
                                   "XDG_CONFIG_DIRS": root + "/xdg", "XDG_STATE_HOME": root + "/state", "PREFS_LOCK_TIMEOUT": "0.2", "PREFS_EXTERNAL_THRESHOLD": "1K",
                                   "PREFS_ETCD_TIMEOUT": "5"].merging(variables) { $1 })
        // No host of this machine: the host layers are there only where a scenario asks for a host.
        environment.machineIDFile = root + "/machine-id"
        self.environment = environment
        store = try under.store(environment: environment)
    }

    /// Another writer of the same suites: a store of its own over the same backend (for the real
    /// cluster, its own client and connections), as another process would have.
    func anotherWriter() throws -> SuiteStore { try under.anotherWriter(of: store, environment: environment) }

    /// A second writer of the same store whose environment adds `variables`.
    func anotherWriter(adding variables: [String: String]) throws -> SuiteStore {
        var changed = Environment((environment.variables ?? [:]).merging(variables) { $1 })
        changed.machineIDFile = environment.machineIDFile
        return try under.store(environment: changed)
    }

    /// The administrator's store of the fleet's managed values, where the store keeps some of its
    /// own (etcd: the store at `PREFIX/.managed`, opened by its URL as the command opens it); nil
    /// for files, whose managed values are only the machine's.
    func administrator() throws -> SuiteStore? { try under.administrator(environment: environment) }

    // MARK: What the store says it can do (the scenarios check the documented difference)

    /// The format a new suite is written in: XML for a file suite (the product brief, "Where things
    /// live"); none for etcd, which keeps each top-level value as a binary plist of its own (the man
    /// page, ETCD STORE), or for a store that holds values, not documents. What the format cannot
    /// hold decides the two rows below.
    var newSuiteFormat: PlistFormat? { store.storage.newDocumentFormat(for: .suite("app")) }

    /// Whether a date keeps its fraction of a second: an XML plist keeps whole seconds.
    var keepsSubsecondDates: Bool { newSuiteFormat != .xml }

    /// Whether a dictionary whose only key is `CF$UID` (with an integer) can be stored: XML writes a
    /// UID in that shape, so such a dictionary would read back as a UID, and a file suite refuses it
    /// (65) and writes nothing.
    var storesUIDShapedDictionaries: Bool { newSuiteFormat != .xml }

    /// Whether a one-key read or change of a suite reads the whole suite (`ContractBackend`).
    var oneKeyChangesReadTheWholeSuite: Bool { under.oneKeyChangesReadTheWholeSuite }

    /// Whether the store keeps ByHost suites (`-currentHost`, `-host`): the etcd store refuses them
    /// with 64 (the man page, ETCD STORE: ByHost suites are kept in files only).
    var keepsByHostSuites: Bool { store.storage.keepsByHostSuites }

    /// Whether the façade can watch the store (`ContractBackend.canBeWatched`).
    var canBeWatched: Bool { under.canBeWatched }

    /// Whether the store keeps named locks (`SuiteBackend.locks`, `prefs lock`): files where the
    /// kernel has them (flock and inotify: not on the in-memory file system), etcd where its waiters
    /// can watch (not the fake). The others refuse the lock verbs and `--fence` (64,
    /// `SuiteStore.keepsNoLocks`).
    var keepsLocks: Bool { get throws { try store.storage.locks() != nil } }

    /// Whether the store keeps the suites' histories (`SuiteBackend.versions`); one that keeps none
    /// refuses `history`, `diff` and `rollback` (64, `keepsHistoryOrRefuses`).
    var keepsHistory: Bool { get throws { try store.storage.versions(of: .suite("app")) != nil } }

    /// Whether values over `PREFS_EXTERNAL_THRESHOLD` are kept outside their suites
    /// (`SuiteBackend.blobStore`); a store without external storage keeps them inline and refuses
    /// `check` and `gc` (64, `valuesStayInline`).
    var keepsBlobs: Bool { get throws { try store.storage.blobStore() != nil } }

    // MARK: Words, as the command types them

    @discardableResult
    func write(_ domain: Domain, _ words: String..., options: WriteOptions = WriteOptions()) throws -> ChangeOutcome {
        try store.write(try WriteRequest.parse(words[...], domain: domain.displayName), to: domain, options: options)
    }

    /// The value at a key path as `read` finds it (every layer), and the layer that gave it.
    func read(_ domain: Domain, _ key: String, scope: ReadScope = ReadScope()) throws -> (value: PrefValue, origin: Origin) {
        try store.value(at: try PrefKeyPath(argument: key), in: domain, scope: scope)
    }

    /// The suite's stored contents, external values as their references (empty when there is none).
    func stored(_ domain: Domain) throws -> PrefDictionary { try store.load(domain)?.contents ?? PrefDictionary() }

    // MARK: Underneath the façade

    /// Everything the backend holds, each entry with what tells whether it was rewritten: for the
    /// file store every directory and file under `root` (mode, inode and time, the bytes' SHA-256);
    /// for etcd every key under the prefix (its revisions: any put moves them). Equal footprints:
    /// nothing was written. With `contents` false, files are not read (names and kinds only).
    func footprint(contents: Bool = true) throws -> [String: String] {
        try under.entries().merging(fileFootprint(root, on: fileSystem, contents: contents)) { stored, _ in stored }
    }

    /// The names of what the store holds (the file store's directories and files, etcd's keys),
    /// with the root or prefix taken off: what a scenario expects to see, or not to see, written.
    func storedNames() throws -> [String] { try names(in: footprint(contents: false)).map(\.name) }

    /// The files (etcd: keys) of `storedNames`, without the directories.
    /// `storedFiles` but for the suites' histories (`.history/…` on etcd, `state/prefs/history/…` on files).
    func storedFilesOutsideHistory() throws -> [String] {
        try storedFiles().filter { !$0.hasPrefix(".history/") && !$0.hasPrefix("state/prefs/history/") }
    }

    func storedFiles() throws -> [String] { try names(in: footprint(contents: false)).filter { !$0.isDirectory }.map(\.name) }

    private func names(in entries: [String: String]) -> [(name: String, isDirectory: Bool)] {
        entries.compactMap { entry in under.storedName(of: entry.key).map { ($0, entry.value.hasPrefix("directory")) } }.sorted { $0.name < $1.name }
    }

    /// A file under `root` (registered defaults a package ships, an administrator's file), with
    /// its directories.
    func put(_ relative: String, _ bytes: [UInt8]) throws {
        let path = root + "/" + relative
        try fileSystem.createDirectory(splitPath(path).directory, mode: 0o755)
        try fileSystem.replace(path, with: bytes, newFileMode: 0o644)
    }

    /// Two ways a suite can hold what prefs cannot read, as another program or a bad disk leaves it.
    enum Damage: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// Bytes that do not parse: a file cut short; an etcd value that is no binary plist.
        case unparsable
        /// What prefs never writes: a file whose root is an array; an etcd key in the suite's place
        /// that no key name spells (`%zz`).
        case foreign
        var testDescription: String { rawValue }
    }

    /// Damages the stored suite `name` (which holds `key`). Returns the footprint after.
    @discardableResult
    func damage(suite name: String, key: String, _ damage: Damage) throws -> [String: String] {
        try under.damage(suite: name, key: key, damage, in: store)
        return try footprint()
    }

    /// Flips a byte of the largest thing the backend holds for a blob (the file, or a chunk).
    func damageBlob(uuid: String) throws {
        try under.damageBlob(Array(try footprint(contents: false).filter { $0.key.contains(uuid) && !$0.value.hasPrefix("directory") }.keys))
    }
}
