/// A server's address: an IP literal (IPv6 without brackets) or a host name, and a port.
package struct NetworkEndpoint: Hashable, Sendable, CustomStringConvertible {
    package let host: String
    package let port: UInt16

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 literal in brackets: how errors and the `Host` header name it.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
