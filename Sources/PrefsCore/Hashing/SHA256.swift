import CPrefsSystem

/// SHA-256 (FIPS 180-4), fed in pieces: the digest external storage records for every blob and checks
/// on the way back. The compression function runs on the CPU's SHA instructions where it has them
/// (x86 SHA extensions, ARMv8 SHA2), chosen at run time, and in portable Swift otherwise. Checked
/// against the FIPS vectors, `sha256sum`, and each other.
package struct SHA256: Sendable {
    /// Which code runs the compression function.
    package enum Implementation: Sendable, Equatable {
        /// Plain Swift: any CPU.
        case portable
        /// The x86 SHA extensions (SHA-NI) with SSSE3 and SSE4.1.
        case x86SHA
        /// The ARMv8 SHA2 crypto extensions.
        case armSHA2

        /// The fastest this CPU and build can run, decided once per process.
        package static let fastest: Implementation = switch prefs_sha256_hardware() {
        case PREFS_SHA256_X86_SHA: .x86SHA
        case PREFS_SHA256_ARM_SHA2: .armSHA2
        default: .portable
        }
    }

    /// H0…H7.
    typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    /// 64 bytes.
    private typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    package let implementation: Implementation
    private static let initialState: State = (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var state = SHA256.initialState
    /// The bytes of an unfinished block: the first `pendingCount` of it.
    private var pending: Block = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// A hasher on `implementation`, which must be `.portable` or `Implementation.fastest`.
    package init(implementation: Implementation = .fastest) {
        precondition(implementation == .portable || implementation == .fastest, "\(implementation) SHA-256 is not available on this CPU")
        self.implementation = implementation
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8], implementation: Implementation = .fastest) -> [UInt8] {
        var hasher = SHA256(implementation: implementation)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Hashes `bytes`: whole blocks straight from them, in one call however many there are.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var rest = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        length &+= UInt64(count)
        if pendingCount > 0 {
            let taken = min(64 - pendingCount, count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.advanced(by: start).copyMemory(from: rest, byteCount: taken) }
            pendingCount += taken
            rest += taken
            count -= taken
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { compress(blocks: $0) }
            pendingCount = 0
        }
        let whole = count & ~63
        if whole > 0 { compress(blocks: UnsafeRawBufferPointer(start: rest, count: whole)) }
        if count > whole {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.copyMemory(from: rest + whole, byteCount: count - whole) }
            pendingCount = count - whole
        }
    }

    /// The digest of everything given (32 bytes). The hasher is spent.
    package mutating func finish() -> [UInt8] {
        // The pending bytes, 0x80, zeros, and the length in bits (big-endian): one block or two.
        var tail: (Block, Block) = ((0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 0))
        let count = pendingCount + 9 <= 64 ? 64 : 128
        withUnsafeMutableBytes(of: &tail) { tail in
            withUnsafeBytes(of: &pending) { tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(pendingCount))) }
            tail[pendingCount] = 0x80
            tail.storeBytes(of: (length &* 8).bigEndian, toByteOffset: count - 8, as: UInt64.self)
        }
        withUnsafeBytes(of: &tail) { compress(blocks: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        pendingCount = 0
        return SHA256.digest(of: state)
    }

    /// H0…H7 big-endian.
    private static func digest(of state: State) -> [UInt8] {
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    /// The digests of inputs of the same length, a multiple of 64 bytes: on the x86 SHA extensions
    /// four or two at once, about twice as fast as one after the other (`SHA256Tree`).
    static func hash(lanes inputs: [UnsafeRawBufferPointer], implementation: Implementation = .fastest) -> [[UInt8]] {
        let length = inputs.first?.count ?? 0
        precondition(length % 64 == 0 && inputs.allSatisfy { $0.count == length }, "lanes of unequal or partial blocks")
        guard implementation != .portable else {
            return inputs.map { input in
                var hasher = SHA256(implementation: .portable)
                hasher.update(input)
                return hasher.finish()
            }
        }
        var states = [State](repeating: SHA256.initialState, count: inputs.count)
        // Whole blocks, then the same last block for every lane: 0x80, zeros, the length in bits.
        var padding: Block = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &padding) { padding in
            padding[0] = 0x80
            padding.storeBytes(of: (UInt64(length) &* 8).bigEndian, toByteOffset: 56, as: UInt64.self)
        }
        states.withUnsafeMutableBufferPointer { states in
            let words: [UnsafeMutablePointer<UInt32>?] = states.indices.map { UnsafeMutableRawPointer(states.baseAddress! + $0).assumingMemoryBound(to: UInt32.self) }
            withUnsafeBytes(of: &padding) { padding in
                words.withUnsafeBufferPointer { words in
                    if length > 0 {
                        let blocks: [UnsafeRawPointer?] = inputs.map { $0.baseAddress }
                        prefs_sha256_compress_lanes(words.baseAddress!, blocks, inputs.count, length / 64)
                    }
                    let last = [UnsafeRawPointer?](repeating: padding.baseAddress!, count: inputs.count)
                    prefs_sha256_compress_lanes(words.baseAddress!, last, inputs.count, 1)
                }
            }
        }
        return states.map(SHA256.digest(of:))
    }

    /// Runs the compression function over whole 64-byte blocks.
    private mutating func compress(blocks: UnsafeRawBufferPointer) {
        switch implementation {
        case .portable:
            SHA256.compressPortable(&state, blocks: blocks)
        case .x86SHA, .armSHA2:
            SHA256.compressHardware(&state, blocks: blocks)
        }
    }

    /// The compression function on the CPU's instructions (`Implementation.fastest` must not be `.portable`).
    static func compressHardware(_ state: inout State, blocks: UnsafeRawBufferPointer) {
        guard let base = blocks.baseAddress else { return }
        withUnsafeMutableBytes(of: &state) { words in
            prefs_sha256_compress(words.baseAddress!.assumingMemoryBound(to: UInt32.self), base, blocks.count / 64)
        }
    }
}
