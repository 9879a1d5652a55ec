import Glibc

/// The markup, as `XMLPlistParser+Markup` and `+Lookup` read it, on the streaming window; every
/// error there is `Undecided` here.
extension XMLPlistStreamLookup {
    typealias Tag = XMLPlistParser.Tag
    typealias StartTag = XMLPlistParser.StartTag

    /// Whitespace, comments and processing instructions (and a DOCTYPE where allowed).
    mutating func skipMisc(allowDoctype: Bool) throws {
        while true {
            try skipSpace()
            if try startsWith("<!--") {
                index += 4
                try skipPast("-->")
            } else if try startsWith("<?") {
                index += 2
                try skipPast("?>")
            } else if try allowDoctype && startsWith("<!DOCTYPE") {
                try skipDoctype()
            } else if try have(1), storage[index] != UInt8(ascii: "<") {
                throw Undecided()
            } else {
                return
            }
        }
    }

    mutating func skipDoctype() throws {
        var doctype = DoctypeEnd()
        index += 9
        while try have(1) {
            let c = storage[index]
            index += 1
            if doctype.ends(at: c) { return }
        }
        throw Undecided()
    }

    /// `<name attr="…" …>` or `<name …/>`; `offset` is the file offset of its `<`.
    mutating func startTag() throws -> StartTag {
        let offset = position
        guard try have(1), storage[index] == UInt8(ascii: "<") else { throw Undecided() }
        index += 1
        let length = try nameLength()
        guard let tag = tag(length) else { throw Undecided() }
        index += length
        while true {
            guard try have(1) else { throw Undecided() }
            let hadSpace = XMLPlistParser.isSpace(storage[index])
            try skipSpace()
            guard try have(1) else { throw Undecided() }
            if storage[index] == UInt8(ascii: ">") {
                index += 1
                return StartTag(tag: tag, isEmpty: false, offset: offset)
            }
            if try startsWith("/>") {
                index += 2
                return StartTag(tag: tag, isEmpty: true, offset: offset)
            }
            guard hadSpace else { throw Undecided() }
            try skipAttribute()
        }
    }

    mutating func skipAttribute() throws {
        let length = try nameLength()
        guard length > 0 else { throw Undecided() }
        index += length
        try skipSpace()
        guard try have(1), storage[index] == UInt8(ascii: "=") else { throw Undecided() }
        index += 1
        try skipSpace()
        guard try have(1), storage[index] == UInt8(ascii: "\"") || storage[index] == UInt8(ascii: "'") else { throw Undecided() }
        let quote = storage[index]
        index += 1
        while try have(1), storage[index] != quote {
            guard storage[index] != UInt8(ascii: "<") else { throw Undecided() }
            index += 1
        }
        guard try have(1) else { throw Undecided() }
        index += 1
    }

    /// `</name>` (spaces allowed before the `>`).
    mutating func endTag(_ tag: Tag) throws {
        let name = tag.name
        let length = name.utf8CodeUnitCount
        if try have(length + 3), storage[index] == UInt8(ascii: "<"), storage[index + 1] == UInt8(ascii: "/"),
            memcmp(storage + index + 2, name.utf8Start, length) == 0, storage[index + 2 + length] == UInt8(ascii: ">")
        {
            index += length + 3
            return
        }
        guard try startsWith("</") else { throw Undecided() }
        index += 2
        let nameLength = try self.nameLength()
        guard self.tag(nameLength) == tag else { throw Undecided() }
        index += nameLength
        try skipSpace()
        guard try have(1), storage[index] == UInt8(ascii: ">") else { throw Undecided() }
        index += 1
    }

    /// Past the text of a scalar element and its end tag (CDATA, comments and processing
    /// instructions included), reading the text only for `<`.
    mutating func skipText(_ start: StartTag) throws {
        if start.isEmpty { return }
        while true {
            guard let hit = memchr(storage + index, Int32(UInt8(ascii: "<")), end - index) else {
                index = end
                if atEnd { throw Undecided() }
                try refill()
                continue
            }
            index = storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if try startsWith("</") { return try endTag(start.tag) }
            if try startsWith("<![CDATA[") {
                index += 9
                try skipPast("]]>")
            } else if try startsWith("<!--") {
                index += 4
                try skipPast("-->")
            } else if try startsWith("<?") {
                index += 2
                try skipPast("?>")
            } else {
                throw Undecided()
            }
        }
    }

    /// Past a value, checking its element structure as `XMLPlistParser.skip` does.
    mutating func skip(_ start: StartTag, depth: Int) throws {
        switch start.tag {
        case .dict, .array:
            guard depth < DecodingLimits.maxDepth else { throw Undecided() }
            if start.isEmpty { return }
            while true {
                try skipMisc(allowDoctype: false)
                if try startsWith("</") { return try endTag(start.tag) }
                let next = try startTag()
                if start.tag == .dict {
                    guard next.tag == .key else { throw Undecided() }
                    try skipText(next)
                    try skipMisc(allowDoctype: false)
                    guard try !startsWith("</") else { throw Undecided() }
                    let value = try startTag()
                    guard value.tag != .key else { throw Undecided() }
                    try skip(value, depth: depth + 1)
                } else {
                    try skip(next, depth: depth + 1)
                }
            }
        case .true, .false:
            if !start.isEmpty { try endTag(start.tag) }
        case .plist:
            throw Undecided()
        default:
            try skipText(start)
        }
    }
}
