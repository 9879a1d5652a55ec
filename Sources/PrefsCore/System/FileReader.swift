import Glibc

/// A file open for reading pieces of it at any offset (`pread` on disk), so that a reader that needs
/// only some of a large file — or goes through it with a small buffer — never holds it whole: its
/// memory stays the same whatever the file's size. Failures are `PrefsError`s naming the file.
package struct FileReader {
    /// The size the file had when it was opened.
    package let size: Int
    private let readAt: (Int, UnsafeMutableRawBufferPointer) throws -> Int

    /// `read(offset, buffer)` fills `buffer` from `offset`, or less only where the file ends, and
    /// tells how many bytes came.
    package init(size: Int, read: @escaping (Int, UnsafeMutableRawBufferPointer) throws -> Int) {
        self.size = size
        readAt = read
    }

    /// A reader of bytes in memory (valid while the reader is used).
    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.init(size: bytes.count) { offset, buffer in
            let count = Swift.max(0, Swift.min(buffer.count, bytes.count - offset))
            if count > 0 { buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count) }
            return count
        }
    }

    /// Reads `buffer.count` bytes at `offset` (fewer only where the file ends); how many came.
    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !buffer.isEmpty else { return 0 }
        return try readAt(offset, buffer)
    }

    /// `count` bytes at `offset`, or nil when the file ends before them.
    package func bytes(at offset: Int, count: Int) throws -> [UInt8]? {
        var failure: Error?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do { initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer)) } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes.count == count ? bytes : nil
    }
}

/// A few blocks of a file kept in memory, for readers that jump about in it (the keys of a binary
/// plist): each read is served from a cached block when it can be, else one `pread` of a block.
final class CachedFileBlocks {
    let reader: FileReader
    private let blockSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// The file offset of each cached block (-1: empty) and when it was last used.
    private var starts: [Int]
    private var used: [Int]
    private var clock = 0
    /// Where spans that do not fit in one block go.
    private var large: UnsafeMutableRawBufferPointer?

    init(_ reader: FileReader, blockSize: Int = 4096, blocks: Int = 16) {
        self.reader = reader
        self.blockSize = blockSize
        storage = .allocate(byteCount: blockSize * blocks, alignment: 64)
        starts = Array(repeating: -1, count: blocks)
        used = Array(repeating: 0, count: blocks)
    }

    deinit {
        storage.deallocate()
        large?.deallocate()
    }

    /// `count` bytes at `offset`, valid until the next call; nil when the file ends before them.
    func bytes(at offset: Int, count: Int) throws -> UnsafeRawBufferPointer? {
        guard offset >= 0, count >= 0, offset <= reader.size, count <= reader.size - offset else { return nil }
        let blockStart = offset - offset % blockSize
        guard offset + count <= blockStart + blockSize else { return try largeSpan(at: offset, count: count) }
        clock += 1
        var slot = 0
        if let found = starts.firstIndex(of: blockStart) {
            slot = found
        } else {
            for i in used.indices where used[i] < used[slot] { slot = i }
            let block = UnsafeMutableRawBufferPointer(rebasing: storage[slot * blockSize..<(slot + 1) * blockSize])
            starts[slot] = -1
            let wanted = Swift.min(blockSize, reader.size - blockStart)
            guard try reader.read(at: blockStart, into: UnsafeMutableRawBufferPointer(rebasing: block[..<wanted])) == wanted else { return nil }
            starts[slot] = blockStart
        }
        used[slot] = clock
        let first = slot * blockSize + offset - blockStart
        return UnsafeRawBufferPointer(rebasing: storage[first..<first + count])
    }

    private func largeSpan(at offset: Int, count: Int) throws -> UnsafeRawBufferPointer? {
        if (large?.count ?? 0) < count {
            large?.deallocate()
            large = .allocate(byteCount: count, alignment: 64)
        }
        let span = UnsafeMutableRawBufferPointer(rebasing: large![..<count])
        guard try reader.read(at: offset, into: span) == count else { return nil }
        return UnsafeRawBufferPointer(span)
    }
}
