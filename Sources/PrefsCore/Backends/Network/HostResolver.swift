import CPrefsSystem
import Glibc
import Synchronization

/// One address to connect to, as `connect(2)` takes it.
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 = 0
}

/// Turns a host and port into addresses, within a deadline. An IP literal is converted at once; a
/// name is looked up by `getaddrinfo` on a thread of its own, so a resolver that does not answer
/// costs the caller its deadline and no more (the thread finishes, or not, on its own).
///
/// Names come from `/etc/hosts` and DNS only (glibc's built-in `files dns`), never from the NSS
/// modules `/etc/nsswitch.conf`'s `hosts:` line may name (`myhostname`, `mymachines`,
/// `mdns4_minimal`, `resolve`, `ldap`…): getaddrinfo would load them with dlopen, and a statically
/// linked process cannot load them safely (each brings a second libc). So it is in a static process
/// always, and in any process that sets `filesAndDNSOnly` (the prefs command does, so that every
/// build resolves alike); a program that links PrefsCore dynamically keeps its own NSS configuration
/// unless it asks. It is the whole process's `hosts` database from the first name looked up on.
package enum HostResolver {
    /// Set before the first lookup to look names up in `/etc/hosts` and DNS only in this process.
    package static let filesAndDNSOnly = Atomic<Bool>(false)

    static func addresses(host: String, port: UInt16, deadline: Double) throws(NetworkFailure) -> [SocketAddress] {
        switch lookup(host: host, port: port, numericOnly: true) {
        case .success(let addresses): return addresses
        case .failure(let code) where code == EAI_NONAME: break
        case .failure(let code): throw .resolve(message(code))
        }
        if filesAndDNSOnly.load(ordering: .relaxed) || isStaticallyLinked { _ = hostsFromFilesAndDNS }
        let lookup = PendingLookup(host: host, port: port)
        try lookup.start()
        switch try lookup.wait(until: deadline) {
        case .success(let addresses): return addresses
        case .failure(let code): throw .resolve(message(code))
        }
    }

    static let isStaticallyLinked = prefs_is_statically_linked() != 0

    /// The `hosts` database made `files dns`, once per process, before the first name is looked up.
    /// (It fails only when memory runs out; the lookup then goes on as nsswitch.conf says.)
    static let hostsFromFilesAndDNS = prefs_hosts_from_files_and_dns() == 0

    enum Outcome: Sendable {
        case success([SocketAddress])
        case failure(Int32)
    }

    static func lookup(host: String, port: UInt16, numericOnly: Bool) -> Outcome {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : AI_ADDRCONFIG)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else { return .failure(code) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let info = entry?.pointee {
            if let address = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                var result = SocketAddress(length: info.ai_addrlen, family: info.ai_family)
                withUnsafeMutableBytes(of: &result.storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
                }
                addresses.append(result)
            }
            entry = info.ai_next
        }
        return addresses.isEmpty ? .failure(EAI_NONAME) : .success(addresses)
    }

    static func message(_ code: Int32) -> String {
        guard let text = gai_strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercasedFirst
    }
}

extension SocketAddress: @unchecked Sendable {}

/// A name lookup running on its own thread, which writes a byte to a socket pair when it is done;
/// the caller polls its end until its deadline. Both sides hold the object, so the socket pair lives
/// until the later of them lets go.
private final class PendingLookup: Sendable {
    let host: String
    let port: UInt16
    let result = Mutex<HostResolver.Outcome?>(nil)
    /// A socket pair: [the caller's end, the thread's end].
    let signal: (Int32, Int32)

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        if socketpair(AF_UNIX, type, 0, &ends) != 0 { ends = [-1, -1] }
        signal = (ends[0], ends[1])
    }

    deinit {
        if signal.0 >= 0 { close(signal.0) }
        if signal.1 >= 0 { close(signal.1) }
    }

    func start() throws(NetworkFailure) {
        guard signal.0 >= 0 else { throw .system("creating a socket pair for the host lookup", errno: errno) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let code = pthread_create(&thread, nil, { context in
            let lookup = Unmanaged<PendingLookup>.fromOpaque(context!).takeRetainedValue()
            let outcome = HostResolver.lookup(host: lookup.host, port: lookup.port, numericOnly: false)
            lookup.result.withLock { $0 = outcome }
            var byte: UInt8 = 1
            _ = write(lookup.signal.1, &byte, 1)
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<PendingLookup>.fromOpaque(context).release()
            throw .system("starting the host lookup", errno: code)
        }
        pthread_detach(thread)
    }

    func wait(until deadline: Double) throws(NetworkFailure) -> HostResolver.Outcome {
        while true {
            if let outcome = result.withLock({ $0 }) { return outcome }
            var fds = [pollfd(fd: signal.0, events: Int16(POLLIN), revents: 0)]
            let timeout = MonotonicClock.pollTimeout(until: deadline)
            if timeout == 0 { throw .timedOut("resolving \(host)") }
            if poll(&fds, 1, timeout) < 0 && errno != EINTR { throw .system("waiting for the host lookup", errno: errno) }
        }
    }
}
