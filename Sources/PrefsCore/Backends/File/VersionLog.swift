/// The file store's history of one suite in one file, `versions.log` in the suite's history
/// directory: a header line, then one record per version, oldest first, each appended as its change
/// commits. A record is its property list's length (4 bytes, big-endian), the version's number (8),
/// how many versions its writer kept (`PREFS_HISTORY`, 4), the version as a binary property list
/// (`SuiteVersion.stored`), and the first 8 bytes of the SHA-256 of all before it in the record.
///
/// A record is appended only after its change is in place, so the log never holds a change that
/// did not happen; one that a crash cut short is the log's last bytes, which readers pass over and
/// the next writer cuts. The versions kept are the newest as many as its newest record's writer
/// kept; older records stay in the log until a writer rewrites it (`VersionLog.slack`), and no one
/// reads them.
struct VersionLog {
    static let name = "versions.log"
    static let header = Array("prefs versions 1\n".utf8)
    /// How many records a log holds beyond those kept before a writer rewrites it with only those:
    /// the rewrite costs one more durable step, so it comes once in this many changes or more.
    static func slack(keeping keep: Int) -> Int { max(keep, 8) }
    static let checksumSize = 8
    static let headSize = 16

    struct Record {
        let number: Int64
        /// How many versions its writer kept.
        let keep: Int
        /// The record's bytes in the log, and its property list's.
        let bytes: Range<Int>
        let payload: Range<Int>
    }

    let bytes: [UInt8]
    private(set) var records: [Record] = []
    /// Where the last whole record ends (0: the log is empty, or holds no more than part of its
    /// header): what lies past it, a record a crash cut short, is passed over.
    private(set) var end = 0
    /// Whether the file does not begin as a log prefs writes.
    private(set) var foreign = false

    /// What stands where the log should be and is no file to read (a FIFO, a device, a directory).
    static let notAFile: VersionLog = {
        var log = VersionLog([])
        log.foreign = true
        return log
    }()

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        let header = VersionLog.header
        guard bytes.count >= header.count else {
            foreign = !header.starts(with: bytes)
            return
        }
        guard bytes.starts(with: header) else {
            foreign = true
            return
        }
        var offset = header.count
        while offset + VersionLog.headSize + VersionLog.checksumSize <= bytes.count {
            let length = Int(VersionLog.integer(bytes, offset, 4))
            let payloadStart = offset + VersionLog.headSize
            let recordEnd = payloadStart + length + VersionLog.checksumSize
            guard recordEnd <= bytes.count else { break }
            records.append(Record(number: Int64(bitPattern: VersionLog.integer(bytes, offset + 4, 8)), keep: Int(VersionLog.integer(bytes, offset + 12, 4)),
                                  bytes: offset..<recordEnd, payload: payloadStart..<payloadStart + length))
            offset = recordEnd
        }
        end = offset
    }

    private static func integer(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Whether a record's checksum holds (checked when it is read, not for every record a writer passes).
    func isIntact(_ record: Record) -> Bool {
        SHA256.hash(Array(bytes[record.bytes.lowerBound..<record.payload.upperBound])).prefix(VersionLog.checksumSize)
            .elementsEqual(bytes[record.payload.upperBound..<record.bytes.upperBound])
    }

    /// How many versions the log keeps: as many as its newest intact record's writer kept.
    var keep: Int? { records.last(where: isIntact)?.keep }

    /// A version's record, written by a writer keeping `keep` versions.
    static func record(_ version: SuiteVersion, keep: Int) throws -> [UInt8] {
        let payload = try version.encoded()
        var record: [UInt8] = []
        record.reserveCapacity(headSize + payload.count + checksumSize)
        for (value, count) in [(UInt64(payload.count), 4), (UInt64(bitPattern: version.number), 8), (UInt64(keep), 4)] {
            for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { record.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        record += payload
        record += SHA256.hash(record).prefix(checksumSize)
        return record
    }

    /// The version a record holds; a damaged one is a corrupt history (65), naming `path`.
    func version(_ record: Record, path: String) throws -> SuiteVersion {
        guard isIntact(record), let version = SuiteVersion(encoded: Array(bytes[record.payload])), version.number == record.number else {
            throw PrefsError.malformed(source: path, format: .binary, reason: "version \(record.number) is damaged")
        }
        return version
    }
}
