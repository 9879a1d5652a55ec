/// A request etcd answered with an error: its gRPC status code and message, and what the client
/// does with it (`verdict`, the one table of gRPC codes; the man page's ETCD STORE shows it).
struct EtcdRefusal: Error, Equatable {
    let code: Int
    /// The server's text as it may be printed, on one line (`ServerText.line`).
    let message: String
    /// The error came in etcd's gateway's error body. False: an HTTP status without it (a redirect,
    /// a grpc-proxy's or web server's 404, an HTML 500): what answered is no etcd gateway, and the
    /// client tries the next endpoint (`code` is then 14, UNAVAILABLE).
    let fromGateway: Bool

    init(code: Int, message: String, fromGateway: Bool = true) {
        self.code = code
        self.message = ServerText.line(message)
        self.fromGateway = fromGateway
    }

    /// What a refusal means for the call.
    enum Verdict: Equatable {
        /// A moment's condition (a member shutting down, the cluster between leaders, a busy
        /// member): the next endpoint, round after round until the timeout (then 69).
        case passing
        /// This member cannot serve the request (it is no gateway, it failed inside, it lacks the
        /// method): the next endpoint; when every endpoint does so twice in a row, as when every one
        /// refuses the connection, a unary call ends (69) without waiting for the timeout.
        case memberFault
        /// The cluster's answer to the request: the call ends with this status.
        case answer(ExitStatus)
    }

    /// The messages of a passing condition, whatever their code.
    static let passingMessages = ["no leader", "leader changed", "request timed out", "server stopped", "not capable", "too many requests"]

    /// The table: what each gRPC code (and HTTP status of etcd's gateway) means. A request that may
    /// have been applied before its refusal (a member shutting down answers 408) is sent again to the
    /// next endpoint, where a transaction finds its own earlier commit (`EtcdTxnResult.resent`).
    var verdict: Verdict {
        guard fromGateway else { return .memberFault }
        if EtcdRefusal.passingMessages.contains(where: message.contains) { return .passing }
        switch normalized.code {
        case 1, 4, 14: return .passing         // CANCELED (408: a member shutting down), DEADLINE_EXCEEDED (504), UNAVAILABLE (503)
        case 2, 12, 13: return .memberFault    // UNKNOWN (500), UNIMPLEMENTED (501: a member of another version), INTERNAL (500)
        case 7, 16: return .answer(.noPermission)  // PERMISSION_DENIED (403), UNAUTHENTICATED (401)
        case 8 where message.hasSuffix("database space exceeded"): return .answer(.cannotWrite)  // the quota is full (429)
        case 10: return .answer(.lockUnavailable)  // ABORTED (409): a conflict, a retry may succeed
        // INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE (400), NOT_FOUND (404), ALREADY_EXISTS
        // (409), RESOURCE_EXHAUSTED (429: a request too large), DATA_LOSS (500), and a code etcd never sends.
        default: return .answer(.dataError)
        }
    }

    /// The error a call ends with at `endpoint`: `.storeRefused` with the status the table gives
    /// (69 for a refusal that is no answer, should one end a call).
    func error(at endpoint: String) -> PrefsError {
        guard case .answer(let status) = verdict else {
            return .storeRefused(endpoint: endpoint, code: normalized.code, message: message, status: .unavailable)
        }
        return .storeRefused(endpoint: endpoint, code: normalized.code, message: message, status: status)
    }

    /// The member does not know the token sent (it restarted, or the token expired), or got none
    /// (auth was enabled since): logging in again may help.
    var asksToLogIn: Bool { message.contains("invalid auth token") || message.contains("user name is empty") }

    /// The gRPC codes etcd uses for a refused login (INVALID_ARGUMENT) and for a request without a
    /// user while auth is on become UNAUTHENTICATED (16), so both exit 77 like a bad token.
    var normalized: EtcdRefusal {
        if message.contains("authentication failed") || message.contains("user name is empty") || message.contains("invalid auth token") {
            return EtcdRefusal(code: 16, message: message)
        }
        return self
    }

    /// An error response's body as etcd's gateway writes it (a unary call's `{"error", "code",
    /// "message"}`, a stream's `{"error": {"grpc_code", …}}`), or, when the body is not that,
    /// "answered HTTP STATUS" (with its first line of text, if any), not `fromGateway`.
    static func from(status: Int, body: [UInt8], source: String) -> EtcdRefusal {
        if let message = try? EtcdMessage(json: body, source: source), let refusal = message.refusal() {
            return refusal
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        if status == 400 && text.hasPrefix("CommonName of client") {
            // etcd 3.4 with auth on takes a certificate's CN as the user over gRPC only; its JSON
            // gateway refuses any request whose client certificate has one.
            return EtcdRefusal(code: 16, message: "with auth on, etcd's JSON gateway refuses a client certificate that has a CommonName: "
                               + "use one without a CN, and PREFS_ETCD_USER and PREFS_ETCD_PASSWORD")
        }
        return EtcdRefusal(code: 14, message: "answered HTTP \(status)\(text.isEmpty ? "" : " (" + text + ")"): not an etcd v3 gateway",
                           fromGateway: false)
    }
}

/// Text a server sent, made safe to print: a newline in it cannot forge a second `prefs:` line,
/// nor an escape sequence drive the terminal.
enum ServerText {
    /// `text` as it is when it is printable ASCII; else on one line with every byte that is not
    /// (and every backslash) escaped as `\xNN`, as keys are shown.
    static func line(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E }) else { return text }
        return ByteText.escaped(Array(text.utf8))
    }
}
