extension EtcdClient {
    /// The prefix used when a URL names none.
    public static let defaultPrefix = "prefs"

    /// The key just after every key that starts with `prefix`: the `rangeEnd` that ranges over the
    /// prefix. `[0]` (every key from `prefix` to the end of the key space) when no such key exists
    /// (an empty prefix, or one of 0xFF bytes only), as etcd's own clients do.
    public static func prefixEnd(_ prefix: [UInt8]) -> [UInt8] {
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
    public static func parse(url: String) throws -> (endpoints: [EtcdEndpoint], prefix: String, secure: Bool) {
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
