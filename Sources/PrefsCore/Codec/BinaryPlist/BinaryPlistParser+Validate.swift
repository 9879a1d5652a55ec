/// Checking a whole binary plist exactly as `decode` does — every object reached from the top, with
/// the same errors — without building any value; and how many bytes the reachable objects take.
extension BinaryPlistParser {
    struct Validation {
        /// Each object's expanded value count once checked (0 before); at most twice
        /// `DecodingLimits.maxExpandedValues`, so 32 bits hold it (half the memory of a large file's).
        var sizes: [UInt32]
        var busy: [Bool]
        /// The bytes of every object reachable from the top.
        var liveBytes = 0
        /// Bytes that are about to be changed in place, and whether any object but their owner
        /// (`protectedOwner`) also lies over them: objects may overlap in a valid file.
        var protected: Range<Int> = 0..<0
        var protectedOwner = -1
        var protectedIsShared = false

        mutating func record(_ ref: Int, _ range: Range<Int>) {
            liveBytes += range.count
            if ref != protectedOwner && range.overlaps(protected) { protectedIsShared = true }
        }

        init(objectCount: Int) {
            sizes = Array(repeating: 0, count: objectCount)
            busy = Array(repeating: false, count: objectCount)
        }
    }

    func validate(ref: Int, depth: Int, _ state: inout Validation) throws -> Int {
        let known = Int(state.sizes[ref])
        if known != 0 { return known }
        let start = try offset(of: ref)
        let place = Place(ref: ref, byte: start)
        var total = 1
        switch try object(ref: ref, at: start) {
        case .utf16(let first, let units):
            try checkUTF16(at: first, units: units, place: place)
            state.record(ref, start..<first + 2 * units)
        case .data(let first, let count), .ascii(let first, let count):
            state.record(ref, start..<first + count)
        case .scalar:
            state.record(ref, start..<start + BinaryPlistParser.scalarLength(bytes[start]))
        case .array(let count, let first), .dictionary(let count, let first):
            let isDictionary = bytes[start] >> 4 == 0xD
            guard !state.busy[ref] else { throw BinaryPlistParser.failure("object \(ref) contains itself") }
            try checkDepth(depth)
            state.busy[ref] = true
            defer { state.busy[ref] = false }
            let refs = isDictionary ? 2 * count : count
            state.record(ref, start..<first + refs * refSize)
            for i in 0..<refs {
                let child = try self.ref(at: first + i * refSize)
                total += try validate(ref: child, depth: depth + 1, &state)
                guard total <= DecodingLimits.maxExpandedValues else {
                    throw BinaryPlistParser.failure("shared objects expand to more than \(DecodingLimits.maxExpandedValues) values")
                }
                if isDictionary && i < count {
                    let marker = bytes[try offset(of: child)] >> 4
                    guard marker == 0x5 || marker == 0x6 else {
                        throw BinaryPlistParser.failure("\(place): dictionary key (object \(child)) is not a string")
                    }
                }
            }
        }
        state.sizes[ref] = UInt32(total)
        return total
    }

    /// The check `utf16String` makes, without making the string.
    func checkUTF16(at first: Int, units: Int, place: Place) throws {
        var i = 0
        while i < units {
            let unit = UInt16(bytes[first + 2 * i]) << 8 | UInt16(bytes[first + 2 * i + 1])
            i += 1
            guard unit & 0xF800 == 0xD800 else { continue }
            guard unit <= 0xDBFF, i < units, bytes[first + 2 * i] & 0xFC == 0xDC else {
                throw BinaryPlistParser.failure("\(place): UTF-16 string has an unpaired surrogate")
            }
            i += 1
        }
    }

    /// The byte length of a fixed-size scalar from its marker (already checked by `object`).
    static func scalarLength(_ marker: UInt8) -> Int {
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x1: return 1 + (1 << low)
        case 0x2: return 1 + (1 << low)
        case 0x3: return 9
        case 0x8: return 2 + low
        default: return 1
        }
    }
}
