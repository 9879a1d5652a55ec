extension EtcdClient {
    /// The prefix used when a URL names none.
    package static let defaultPrefix = "prefs"

    /// The key just after every key that starts with `prefix`: the `rangeEnd` that ranges over the
    /// prefix. `[0]` (every key from `prefix` to the end of the key space) when no such key exists
    /// (an empty prefix, or one of 0xFF bytes only), as etcd's own clients do.
    package static func prefixEnd(_ prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]
    }

    /// The URLs `parse` takes, as messages show them.
    static let urlForm = "etcd://HOST:PORT[,HOST:PORT…][/PREFIX], or etcds://… for TLS"

    /// Parses `etcd://HOST:PORT[,HOST:PORT…][/PREFIX]`, or `etcds://…` for TLS (`secure`). A host is
    /// a name, an IPv4 literal or an IPv6 literal in brackets; every port is given. The prefix is the
    /// rest of the path (slashes allowed inside, no empty segment) and defaults to "prefs". Anything
    /// else — another scheme, user info, a query or fragment, a missing or bad port, an empty host —
    /// is `PrefsError.usage` naming the URL.
    package static func parse(url: String) throws -> (endpoints: [EtcdEndpoint], prefix: String, secure: Bool) {
        try parseSimple(url) ?? parseFull(url: url)
    }

    /// `parse`, character by character, whatever the URL holds.
    static func parseFull(url: String) throws -> (endpoints: [EtcdEndpoint], prefix: String, secure: Bool) {
        func bad(_ reason: String) -> PrefsError { .usage("bad etcd URL '\(url)': \(reason)") }
        let lowered = url.lowercased()
        let secure = lowered.hasPrefix("etcds://")
        let scheme = secure ? "etcds://" : "etcd://"
        guard url.utf8.count > scheme.utf8.count, lowered.hasPrefix(scheme) else {
            throw bad("expected " + urlForm)
        }
        let rest = url.dropFirst(scheme.count)
        guard !rest.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" || $0 == "\\" || $0.isWhitespace || $0 == "\0" }) else {
            throw bad("it may not hold a query, a fragment, user info, a backslash or white space")
        }
        let authority = rest.prefix { $0 != "/" }
        var prefix = defaultPrefix
        if authority.endIndex < rest.endIndex {
            let path = rest[rest.index(after: authority.endIndex)...]
            guard !path.isEmpty, !path.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
                throw bad("the prefix after '/' is empty or has an empty segment")
            }
            prefix = String(path)
        }
        var endpoints: [EtcdEndpoint] = []
        for part in authority.split(separator: ",", omittingEmptySubsequences: false) {
            let endpoint = try parseEndpoint(part, bad)
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
        }
        return (endpoints, prefix, secure)
    }

    /// `parse` for a URL of printable ASCII with no IPv6 literal (every URL a command is usually
    /// given), byte by byte: the same answer as `parse`, at a small part of its cost (a command parses
    /// its store's URL more than once, and `parse` goes through Unicode characters); nil for anything
    /// else, which `parse` then reads, and explains when it is wrong. Plain loops over indices: each
    /// generic sequence type (a zip, a split) is metadata every run of prefs would set up anew.
    static func parseSimple(_ url: String) -> (endpoints: [EtcdEndpoint], prefix: String, secure: Bool)? {
        let bytes = Array(url.utf8)
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        // Printable ASCII, none of ? # @ \ (no white space, no control character, no NUL).
        for byte in bytes where byte <= 0x20 || byte >= 0x7F || byte == 0x3F || byte == 0x23 || byte == 0x40 || byte == 0x5C { return nil }
        func starts(with scheme: StaticString) -> Bool {
            guard bytes.count > scheme.utf8CodeUnitCount else { return false }
            let pointer = scheme.utf8Start
            for i in 0..<scheme.utf8CodeUnitCount where lower(bytes[i]) != pointer[i] { return false }
            return true
        }
        let secure = starts(with: "etcds://")
        guard secure || starts(with: "etcd://") else { return nil }
        let start = secure ? 8 : 7
        var slash = start
        while slash < bytes.count && bytes[slash] != 0x2F { slash += 1 }
        var prefix = defaultPrefix
        if slash < bytes.count {
            // Not empty, no empty segment: no "//", no "/" at either end.
            guard slash + 1 < bytes.count, bytes[slash + 1] != 0x2F, bytes[bytes.count - 1] != 0x2F else { return nil }
            for i in (slash + 1)..<(bytes.count - 1) where bytes[i] == 0x2F && bytes[i + 1] == 0x2F { return nil }
            prefix = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        }
        var endpoints: [EtcdEndpoint] = []
        var partStart = start
        while partStart <= slash {
            var partEnd = partStart
            while partEnd < slash && bytes[partEnd] != 0x2C { partEnd += 1 }
            guard let endpoint = simpleEndpoint(bytes, partStart, partEnd) else { return nil }
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
            partStart = partEnd + 1
        }
        return (endpoints, prefix, secure)
    }

    /// `HOST:PORT` in `bytes[start..<end]` as `parseEndpoint` takes it, a host name or IPv4
    /// address; nil for anything else.
    private static func simpleEndpoint(_ bytes: [UInt8], _ start: Int, _ end: Int) -> EtcdEndpoint? {
        var colon = end - 1
        while colon >= start && bytes[colon] != 0x3A { colon -= 1 }
        guard colon > start, end - colon - 1 >= 1, end - colon - 1 <= 5, bytes[start] != 0x2D, bytes[start] != 0x2E else { return nil }
        for i in start..<colon {
            let byte = bytes[i], letter = byte | 0x20
            guard (byte >= 0x30 && byte <= 0x39) || (letter >= 0x61 && letter <= 0x7A) || byte == 0x2D || byte == 0x2E || byte == 0x5F else { return nil }
            if byte == 0x2E && i + 1 < colon && bytes[i + 1] == 0x2E { return nil }
        }
        var port = 0
        for i in (colon + 1)..<end {
            guard bytes[i] >= 0x30 && bytes[i] <= 0x39 else { return nil }
            port = port * 10 + Int(bytes[i] - 0x30)
        }
        guard port > 0, port <= 65535 else { return nil }
        return EtcdEndpoint(host: String(decoding: bytes[start..<colon], as: UTF8.self), port: UInt16(port))
    }

    private static func parseEndpoint(_ text: Substring, _ bad: (String) -> PrefsError) throws -> EtcdEndpoint {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw bad("'\(text)': no ']' after the IPv6 address") }
            host = text[text.index(after: text.startIndex)..<close]
            guard !host.isEmpty, host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw bad("'\(text)': not an IPv6 address")
            }
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw bad("'\(text)': no port") }
            portText = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw bad("'\(text)': no port (HOST:PORT)") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.isEmpty else { throw bad("'\(text)': no host") }
            guard host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." || $0 == "_" }),
                !host.hasPrefix("-"), !host.hasPrefix("."), !host.contains("..")
            else { throw bad("'\(text)': '\(host)' is not a host name or IPv4 address") }
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = UInt16(portText), port > 0
        else { throw bad("'\(text)': the port must be a number from 1 to 65535") }
        return EtcdEndpoint(host: String(host), port: port)
    }
}
