/// Parsing of an HTTP/1.1 response's head (RFC 9112), strictly: what etcd's Go server sends, and
/// nothing that could make a body's framing ambiguous.
extension HTTPResponseHead {
    /// `lines`: the status line, then the header lines, without their CRLFs.
    static func parse(_ lines: [ArraySlice<UInt8>]) throws(NetworkFailure) -> HTTPResponseHead {
        guard let statusLine = lines.first else { throw .malformed("no status line") }
        let (version, status) = try parseStatusLine(statusLine)
        var contentLength: Int?
        var chunked = false
        var keepAlive = version == "HTTP/1.1"
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line.first != 0x20, line.first != 0x09
            else { throw .malformed("a header line is not \"name: value\"") }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = trimmed(line[(colon + 1)...])
            switch name {
            case "content-length":
                guard let length = decimal(value), contentLength == nil || contentLength == length else {
                    throw .malformed("bad or conflicting Content-Length")
                }
                contentLength = length
            case "transfer-encoding":
                let codings = String(decoding: value, as: UTF8.self).lowercased().split(separator: ",").map { $0.trimmingSpaces }
                guard codings.last == "chunked", codings.allSatisfy({ $0 == "chunked" }) || codings.count == 1 else {
                    throw .malformed("unsupported Transfer-Encoding")
                }
                chunked = true
            case "connection":
                let options = String(decoding: value, as: UTF8.self).lowercased().split(separator: ",").map { $0.trimmingSpaces }
                if options.contains("close") { keepAlive = false }
                if options.contains("keep-alive") { keepAlive = true }
            default:
                continue
            }
        }
        let framing: Framing
        if (100..<200).contains(status) || status == 204 || status == 304 {
            framing = .none
        } else if chunked {
            // With both, Transfer-Encoding wins; such a response may be smuggling, so do not reuse.
            if contentLength != nil { keepAlive = false }
            framing = .chunked
        } else if let contentLength {
            framing = .length(contentLength)
        } else {
            framing = .untilClose
        }
        return HTTPResponseHead(status: status, framing: framing, keepAlive: keepAlive)
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(NetworkFailure) -> (String, Int) {
        if TLSProbe.looksLikeTLS(line) { throw .speaksTLS }
        let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw .malformed("bad status line") }
        let version = String(decoding: parts[0], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .malformed("not HTTP/1.x") }
        guard parts[1].count == 3, let status = decimal(parts[1]), status >= 100 else { throw .malformed("bad status code") }
        return (version, status)
    }

    /// A chunk-size line: hexadecimal digits, then optional `;extensions`.
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(NetworkFailure) -> Int {
        let digits = trimmed(line.prefix { $0 != UInt8(ascii: ";") })
        guard !digits.isEmpty, digits.count <= 15 else { throw .malformed("bad chunk size") }
        var size = 0
        for c in digits {
            guard let v = NumberText.digitValue(c) else { throw .malformed("bad chunk size") }
            size = size << 4 | Int(v)
        }
        return size
    }

    /// A non-negative decimal number of at most 18 digits (so it cannot overflow).
    static func decimal(_ text: ArraySlice<UInt8>) -> Int? {
        guard !text.isEmpty, text.count <= 18 else { return nil }
        var n = 0
        for c in text {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(c - UInt8(ascii: "0"))
        }
        return n
    }

    static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var text = text
        while let c = text.first, c == 0x20 || c == 0x09 { text.removeFirst() }
        while let c = text.last, c == 0x20 || c == 0x09 { text.removeLast() }
        return text
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
