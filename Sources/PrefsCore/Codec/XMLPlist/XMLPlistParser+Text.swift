extension XMLPlistParser {
    /// The text of a `<string>` or `<key>`: characters, entities, character references and CDATA.
    mutating func text(_ start: StartTag) throws -> String {
        let (range, owned) = try content(start)
        let string: String?
        if let range {
            string = UTF8Text.string(UnsafeBufferPointer(rebasing: bytes[range]))
        } else {
            string = UTF8Text.string(owned)
        }
        guard let string else { throw failure("<\(start.tag.rawValue)> is not valid UTF-8", at: start.offset) }
        return string
    }

    /// The content bytes of a scalar element (for numbers, dates and data).
    mutating func textBytes(_ start: StartTag) throws -> [UInt8] {
        let (range, owned) = try content(start)
        return range.map { Array(bytes[$0]) } ?? owned
    }

    /// Reads up to and including the end tag. Returns the range of the content when it is plain text
    /// (no copy), or the decoded bytes when it had entities, CDATA or comments.
    mutating func content(_ start: StartTag) throws -> (Range<Int>?, [UInt8]) {
        if start.isEmpty { return (index..<index, []) }
        let begin = index
        var decoded: [UInt8]? = nil
        var mark = index
        while true {
            while index < bytes.count && bytes[index] != UInt8(ascii: "<") && bytes[index] != UInt8(ascii: "&") {
                index += 1
            }
            guard index < bytes.count else { throw failure("unterminated <\(start.tag.rawValue)>", at: start.offset) }
            if startsWith("</") {
                let end = index
                try endTag(start.tag)
                guard decoded != nil else { return (begin..<end, []) }
                decoded!.append(contentsOf: bytes[mark..<end])
                return (nil, decoded!)
            }
            if decoded == nil { decoded = [] }
            decoded!.append(contentsOf: bytes[mark..<index])
            if bytes[index] == UInt8(ascii: "&") {
                try entity(into: &decoded!)
            } else if startsWith("<![CDATA[") {
                guard let end = find("]]>", from: index + 9) else { throw failure("unterminated CDATA section") }
                decoded!.append(contentsOf: bytes[(index + 9)..<end])
                index = end + 3
            } else if startsWith("<!--") {
                guard let end = find("-->", from: index + 4) else { throw failure("unterminated comment") }
                index = end + 3
            } else if startsWith("<?") {
                guard let end = find("?>", from: index + 2) else { throw failure("unterminated processing instruction") }
                index = end + 2
            } else {
                throw failure("element inside <\(start.tag.rawValue)>")
            }
            mark = index
        }
    }

    /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#NN;` `&#xHH;`. Nothing else: entities a DOCTYPE
    /// declares are refused, never expanded.
    mutating func entity(into out: inout [UInt8]) throws {
        let start = index
        var end = index + 1
        while end < bytes.count && end - start <= 12 && bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw failure("'&' that does not start an entity reference (write &amp;)", at: start)
        }
        let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
        index = end + 1
        switch name {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default:
            var digits = Substring(name)
            guard digits.first == "#" else { throw failure("undefined entity &\(name);", at: start) }
            digits = digits.dropFirst()
            var radix = 10
            if digits.first == "x" { radix = 16; digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && (radix == 16 || $0.isNumber) }),
                let code = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(code)
            else { throw failure("invalid character reference &\(name);", at: start) }
            out.append(contentsOf: String(Character(scalar)).utf8)
        }
    }

    static func trimmed(_ text: [UInt8]) -> ArraySlice<UInt8> {
        var slice = text[...]
        while let c = slice.first, isSpace(c) { slice = slice.dropFirst() }
        while let c = slice.last, isSpace(c) { slice = slice.dropLast() }
        return slice
    }

    /// Decimal or `0x` hex, optional sign, from Int64.min to UInt64.max.
    func integer(_ text: [UInt8], at offset: Int) throws -> PrefValue {
        guard let value = NumberText.integer(XMLPlistParser.trimmed(text), allowHex: true) else {
            throw failure("<integer> \"\(String(decoding: text, as: UTF8.self))\" is not a 64-bit integer", at: offset)
        }
        return value
    }

    /// A decimal real, or nan / inf / infinity with an optional sign, in any case.
    func real(_ text: [UInt8], at offset: Int) throws -> PrefValue {
        guard let value = NumberText.real(XMLPlistParser.trimmed(text), allowNamedValues: true) else {
            throw failure("<real> \"\(String(decoding: text, as: UTF8.self))\" is not a finite 64-bit real, nan or inf", at: offset)
        }
        return .real(value)
    }

    /// CoreFoundation's form `YYYY-MM-DDTHH:MM:SSZ`, the year with any number of digits.
    func date(_ text: [UInt8], at offset: Int) throws -> PrefValue {
        var scanner = DateScanner(text)
        var yearDigits = scanner.digits()
        let negative = yearDigits.isEmpty && scanner.take("-")
        if negative { yearDigits = scanner.digits() }
        guard !yearDigits.isEmpty, yearDigits.count <= 9, let year = Int64(yearDigits), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"), let day = scanner.number(digits: 2),
            scanner.take("T"), let hour = scanner.number(digits: 2), scanner.take(":"),
            let minute = scanner.number(digits: 2), scanner.take(":"), let second = scanner.number(digits: 2),
            scanner.take("Z"), scanner.atEnd
        else {
            throw failure("<date> \"\(String(decoding: text, as: UTF8.self))\" is not YYYY-MM-DDTHH:MM:SSZ", at: offset)
        }
        guard !negative, let date = PrefDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second) else {
            throw failure("<date> \"\(String(decoding: text, as: UTF8.self))\" is not a valid date in the years 0001–9999", at: offset)
        }
        return .date(date)
    }
}
