// TLS for the etcd client, through the system's OpenSSL (libssl, libcrypto): a context that holds the
// trust anchors and the client's certificate, and sessions over non-blocking sockets that the caller
// owns and polls. Nothing here implements TLS or cryptography: each function is a thin wrapper whose
// job is to turn OpenSSL's error queue and verification result into one line of text.
#ifndef CPREFS_TLS_H
#define CPREFS_TLS_H

#include <stddef.h>

/// What a call on a session asks of the caller: wait until the socket is readable (or writable),
/// then call again.
#define PREFS_TLS_WANT_READ (-2)
#define PREFS_TLS_WANT_WRITE (-3)
/// The call failed; the reason is in the error buffer: a certificate was refused (the server's by
/// the verification, ours by the server's alert), or the socket failed (`*system_error` set).
#define PREFS_TLS_ERROR (-1)
/// The session broke off otherwise: the server closed the connection (in the handshake too), or
/// what came is not TLS. The reason is in the error buffer.
#define PREFS_TLS_BROKEN (-4)
/// The context's CA file, certificate or key cannot be used; the reason is in the error buffer
/// (`prefs_tls_context_load`'s).
#define PREFS_TLS_CREDENTIALS (-5)

typedef struct prefs_tls_context prefs_tls_context;
typedef struct prefs_tls_session prefs_tls_session;

/// The OpenSSL this binary runs with, as it names itself ("OpenSSL 3.0.17 1 Jul 2025").
const char *prefs_tls_library_version(void);

/// A client context: TLS 1.2 or later, the server's certificate verified against the PEM
/// certificates in `ca` (`ca_size` bytes; NULL: the system's trust store) and, when `cert` is given,
/// the client's PEM certificate chain and its PEM private key `key`, offered when the server asks.
/// The texts are copied and parsed later, once: by the first handshake, in the time the server takes
/// to answer its ClientHello (about a millisecond of a one-key read), or by `prefs_tls_context_load`.
/// NULL with `error` filled when OpenSSL cannot make a context.
/// `own_process` (non-zero): the program has OpenSSL to itself, which the first context then sets up
/// lean for the whole process (no openssl.cnf, error texts loaded on the first error, no legacy
/// cipher-name table, no clean-up at exit; setup.c says why); 0 leaves OpenSSL's defaults.
prefs_tls_context *prefs_tls_context_new(int own_process, const void *ca, size_t ca_size, const void *cert, size_t cert_size,
                                         const void *key, size_t key_size, char *error, size_t error_size);
void prefs_tls_context_free(prefs_tls_context *context);

/// Parses the context's credentials, if no handshake has yet: 1, or 0 with `error` filled when one
/// of them cannot be parsed or the key does not match the certificate ("key file: …").
int prefs_tls_context_load(prefs_tls_context *context, char *error, size_t error_size);

/// A session on the connected non-blocking socket `fd` (not taken over: the caller closes it after
/// freeing the session) to `host`, a name or an IP address as the user wrote it: the server's
/// certificate must be for that name (also sent as SNI) or that address. Writes never raise SIGPIPE.
prefs_tls_session *prefs_tls_session_new(prefs_tls_context *context, int fd, const char *host, char *error, size_t error_size);
void prefs_tls_session_free(prefs_tls_session *session);

/// One step of the handshake: 0 when it is complete, PREFS_TLS_WANT_READ or _WANT_WRITE,
/// PREFS_TLS_ERROR with the reason (why the server's certificate was refused, the alert it sent, …),
/// PREFS_TLS_BROKEN, or PREFS_TLS_CREDENTIALS. `*system_error` is the errno when the socket itself
/// failed (0 otherwise). Nothing the server sends is read before the context's credentials are
/// parsed: the first step sends the ClientHello, and parses them while the server answers (with a
/// session offered for resumption, only if the server makes a full handshake, when it needs them).
int prefs_tls_handshake(prefs_tls_session *session, int *system_error, char *error, size_t error_size);

/// Bytes read (> 0), 0 when the server closed the connection, PREFS_TLS_WANT_READ or _WANT_WRITE,
/// PREFS_TLS_ERROR (`*system_error` as for the handshake) or PREFS_TLS_BROKEN.
long prefs_tls_read(prefs_tls_session *session, void *buffer, size_t count, int *system_error, char *error, size_t error_size);

/// Bytes written (> 0), PREFS_TLS_WANT_READ or _WANT_WRITE, PREFS_TLS_ERROR or PREFS_TLS_BROKEN.
long prefs_tls_write(prefs_tls_session *session, const void *buffer, size_t count, int *system_error, char *error, size_t error_size);

/// Decrypted bytes already held by the session (readable without waiting on the socket).
int prefs_tls_pending(prefs_tls_session *session);

/// Offers the session `der` (what `prefs_tls_session_ticket` gave on an earlier connection to the
/// same server with the same credentials) for resumption, before the handshake: 1 when it is
/// offered, 0 when not (not a session, not resumable, or older than the server allows). The server
/// may still make a full handshake instead; the credentials are then parsed as it needs them.
int prefs_tls_session_resume(prefs_tls_session *session, const void *der, size_t size);

/// Whether the handshake resumed the offered session.
int prefs_tls_session_resumed(prefs_tls_session *session);

/// Whether the server has given a session for resumption that `prefs_tls_session_ticket` has not
/// taken (TLS 1.3 servers send it after the handshake; it is read with the answer).
int prefs_tls_session_has_ticket(prefs_tls_session *session);

/// Takes the newest session the server gave for resumption, DER encoded into `buffer`: its size, or
/// 0 when none came, it cannot be resumed, or it does not fit in `size` bytes.
long prefs_tls_session_ticket(prefs_tls_session *session, void *buffer, size_t size);

/// The protocol version agreed ("TLSv1.3").
const char *prefs_tls_session_version(prefs_tls_session *session);

#endif
