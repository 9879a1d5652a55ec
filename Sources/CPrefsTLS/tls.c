#include "CPrefsTLS.h"
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/// The credentials are parsed once, by the first session that needs them (`load`): until then the
/// context keeps their PEM text. A session that resumes an earlier one needs none of them, unless
/// the server makes a full handshake instead: then they are parsed when it shows its certificate or
/// asks for the client's (`verify_server`, `use_identity`).
struct prefs_tls_context {
    SSL_CTX *ssl;
    pthread_mutex_t lock;
    /// 0: not parsed yet; 1: in use; -1: refused, for the reason in `failure`.
    int loaded;
    char failure[256];
    int system_trust;
    unsigned char *ca, *cert, *key;
    size_t ca_size, cert_size, key_size;
    X509 *leaf;
    STACK_OF(X509) *chain;
    EVP_PKEY *pkey;
};

struct prefs_tls_session {
    SSL *ssl;
    prefs_tls_context *context;
    int fd;
    /// Reads wait (as if nothing had come) until the ClientHello is out and the credentials are
    /// parsed: a server's answer is never read before what checks it is there. A session offered
    /// for resumption does not wait: the callbacks parse them if the server makes a full handshake.
    int held;
    /// Bytes written to the session but not yet to the socket (`out_sent` of `out_size` gone):
    /// under TLS 1.3 the client's last handshake flight (its Finished), which then leaves with the
    /// first request in one segment, so that the server wakes once for both. TLS 1.3 lets a
    /// client send data right after its Finished; under TLS 1.2 the server answers the Finished
    /// before any data may follow, and nothing is held.
    unsigned char *out;
    size_t out_size, out_sent;
    /// An earlier session was offered for resumption (`prefs_tls_session_resume`).
    int resuming;
    /// Why the credentials could not be used when a callback needed them (NULL: they could).
    const char *refused;
    /// The newest session the server gave for resumption, until `prefs_tls_session_ticket` takes it.
    SSL_SESSION *ticket;
};

static void put(char *error, size_t size, const char *text) {
    if (size > 0) snprintf(error, size, "%s", text);
}

/// The reason of the oldest error in this thread's OpenSSL queue ("certificate verify failed"), or
/// `fallback`; the queue is left empty.
static void reason(char *error, size_t size, const char *fallback) {
    unsigned long code = ERR_get_error();
    const char *text = code ? prefs_tls_error_text(code) : NULL;
    put(error, size, text ? text : fallback);
    ERR_clear_error();
}

const char *prefs_tls_library_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

// MARK: A socket BIO that never raises SIGPIPE

// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE when the server has gone; this
// one sends with MSG_NOSIGNAL (EPIPE instead), as the plain-text connections do.

/// Sends what the session holds: 1 when all of it is gone, 0 when the socket takes no more for
/// now, -1 on a failure (errno).
static int send_held(prefs_tls_session *session) {
    while (session->out_sent < session->out_size) {
        ssize_t sent = send(session->fd, session->out + session->out_sent, session->out_size - session->out_sent, MSG_NOSIGNAL);
        if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        session->out_sent += (size_t)sent;
    }
    free(session->out);
    session->out = NULL;
    session->out_size = session->out_sent = 0;
    return 1;
}

/// Adds `count` bytes to what the session holds; 0 when there is no memory for them.
static int hold(prefs_tls_session *session, const char *data, int count) {
    unsigned char *grown = realloc(session->out, session->out_size + (size_t)count);
    if (!grown) return 0;
    memcpy(grown + session->out_size, data, (size_t)count);
    session->out = grown;
    session->out_size += (size_t)count;
    return 1;
}

/// The most a session holds before what is written waits for it to go (as for a full socket).
enum { PREFS_TLS_HELD_MAX = 64 * 1024 };

static int bio_write(BIO *bio, const char *data, int count) {
    BIO_clear_retry_flags(bio);
    prefs_tls_session *session = BIO_get_data(bio);
    if (SSL_get_state(session->ssl) == TLS_ST_CW_FINISHED && SSL_version(session->ssl) == TLS1_3_VERSION) {
        // The last handshake flight: held until the request (or a read) sends it.
        if (!hold(session, data, count)) return errno = ENOMEM, -1;
        return count;
    }
    if (session->out) {
        // Held bytes go first. What is written joins them, to leave in the same segment, unless
        // they are many: a socket that takes nothing never has a whole upload held in memory.
        if (session->out_size - session->out_sent < PREFS_TLS_HELD_MAX) {
            if (!hold(session, data, count)) return errno = ENOMEM, -1;
            return send_held(session) < 0 ? -1 : count;
        }
        int gone = send_held(session);
        if (gone == 0) BIO_set_retry_write(bio);
        if (gone <= 0) return -1;
    }
    ssize_t sent = send(session->fd, data, (size_t)count, MSG_NOSIGNAL);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_write(bio);
    return (int)sent;
}

static int bio_read(BIO *bio, char *data, int count) {
    BIO_clear_retry_flags(bio);
    prefs_tls_session *session = BIO_get_data(bio);
    if (session->held) {
        BIO_set_retry_read(bio);
        return -1;
    }
    ssize_t received = recv(session->fd, data, (size_t)count, 0);
    if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(bio);
    return (int)received;
}

static long bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio, (void)number, (void)pointer;
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static BIO_METHOD *socket_method;
static CRYPTO_ONCE socket_method_once = CRYPTO_ONCE_STATIC_INIT;

static void make_socket_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "prefs socket");
    if (!method) return;
    BIO_meth_set_write(method, bio_write);
    BIO_meth_set_read(method, bio_read);
    BIO_meth_set_ctrl(method, bio_ctrl);
    BIO_meth_set_create(method, bio_create);
    socket_method = method;
}

// MARK: Contexts

/// Parses the client's certificate, the chain after it, and its key into `context`: 1, or 0 (the
/// certificate) or -1 (the key) with the reason.
static int read_identity(prefs_tls_context *context, char *error, size_t error_size) {
    BIO *bio = BIO_new_mem_buf(context->cert, (int)context->cert_size);
    context->leaf = bio ? PEM_read_bio_X509_AUX(bio, NULL, NULL, NULL) : NULL;
    if (!context->leaf) {
        BIO_free(bio);
        reason(error, error_size, "no PEM certificate in it");
        return 0;
    }
    X509 *next;
    while ((next = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (!context->chain) context->chain = sk_X509_new_null();
        if (!context->chain || !sk_X509_push(context->chain, next)) X509_free(next);
    }
    ERR_clear_error(); // the end of the file reads as "no start line"
    BIO_free(bio);
    if (prefs_tls_key_is_encrypted((const char *)context->key, context->key_size)) {
        put(error, error_size, "the private key is encrypted; prefs takes an unencrypted key, as etcdctl does "
                               "(openssl pkey -in KEY -out PLAIN.key writes one)");
        return -1;
    }
    context->pkey = prefs_tls_read_key(context->key, context->key_size);
    if (!context->pkey) {
        reason(error, error_size, "no PEM private key in it");
        return -1;
    }
    if (X509_check_private_key(context->leaf, context->pkey) != 1) {
        reason(error, error_size, "the key does not match the certificate");
        return -1;
    }
    return 1;
}

/// The trust anchors into the context's store and the client's identity parsed, once: whether they
/// can be used (`context->failure` says why not).
static int load(prefs_tls_context *context) {
    pthread_mutex_lock(&context->lock);
    if (context->loaded == 0) {
        context->loaded = -1;
        if (context->system_trust) {
            if (SSL_CTX_set_default_verify_paths(context->ssl) != 1) {
                reason(context->failure, sizeof context->failure, "the system's trust store cannot be loaded");
                goto done;
            }
        } else if (prefs_tls_add_trust(SSL_CTX_get_cert_store(context->ssl), context->ca, context->ca_size) == 0) {
            char detail[160];
            reason(detail, sizeof detail, "no PEM certificate in it");
            snprintf(context->failure, sizeof context->failure, "CA file: %s", detail);
            goto done;
        }
        if (context->cert) {
            char detail[160] = "";
            int used = read_identity(context, detail, sizeof detail);
            if (used <= 0) {
                snprintf(context->failure, sizeof context->failure, "%s: %s", used == 0 ? "certificate file" : "key file", detail);
                goto done;
            }
        }
        context->loaded = 1;
    done:
        OPENSSL_clear_free(context->key, context->key_size);
        free(context->ca);
        free(context->cert);
        context->ca = context->cert = context->key = NULL;
    }
    int loaded = context->loaded;
    pthread_mutex_unlock(&context->lock);
    return loaded;
}

/// The server's certificate verified, the trust anchors parsed first if they are not yet (a session
/// that offered an earlier one for resumption, which the server did not take).
static int verify_server(X509_STORE_CTX *store_context, void *unused) {
    (void)unused;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store_context, SSL_get_ex_data_X509_STORE_CTX_idx());
    prefs_tls_session *session = ssl ? SSL_get_app_data(ssl) : NULL;
    if (!session) return 0;
    if (load(session->context) != 1) {
        session->refused = session->context->failure;
        X509_STORE_CTX_set_error(store_context, X509_V_ERR_UNSPECIFIED);
        return 0;
    }
    return X509_verify_cert(store_context) == 1;
}

/// The client's certificate and key given to a session whose server asks for them, parsed first if
/// they are not yet; none when the context has none.
static int use_identity(SSL *ssl, void *unused) {
    (void)unused;
    prefs_tls_session *session = SSL_get_app_data(ssl);
    if (!session) return 0;
    prefs_tls_context *context = session->context;
    if (load(context) != 1) {
        session->refused = context->failure;
        return 0;
    }
    if (context->leaf && SSL_use_cert_and_key(ssl, context->leaf, context->pkey, context->chain, 1) != 1) {
        ERR_clear_error();
        session->refused = "the client certificate cannot be used";
        return 0;
    }
    return 1;
}

/// Keeps the newest session a server gives for resumption on its `prefs_tls_session` (taking the
/// reference OpenSSL passes).
static int keep_ticket(SSL *ssl, SSL_SESSION *ticket) {
    prefs_tls_session *session = SSL_get_app_data(ssl);
    if (!session) return 0;
    SSL_SESSION_free(session->ticket);
    session->ticket = ticket;
    return 1;
}

/// A copy of `size` bytes at `bytes` (at least one byte allocated), or NULL.
static unsigned char *copy(const void *bytes, size_t size) {
    unsigned char *made = malloc(size ? size : 1);
    if (made && size) memcpy(made, bytes, size);
    return made;
}

prefs_tls_context *prefs_tls_context_new(int own_process, const void *ca, size_t ca_size, const void *cert, size_t cert_size,
                                         const void *key, size_t key_size, char *error, size_t error_size) {
    prefs_tls_set_up(own_process);
    prefs_tls_context *context = calloc(1, sizeof *context);
    if (!context) {
        put(error, error_size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&context->lock, NULL);
    context->ssl = SSL_CTX_new(TLS_client_method());
    if (!context->ssl) {
        reason(error, error_size, "cannot make a TLS context");
        goto fail;
    }
    SSL_CTX_set_min_proto_version(context->ssl, TLS1_2_VERSION);
    SSL_CTX_set_verify(context->ssl, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(context->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_cert_verify_callback(context->ssl, verify_server, NULL);
    SSL_CTX_set_cert_cb(context->ssl, use_identity, NULL);
    // Sessions for resumption go to the caller (prefs_tls_session_ticket), never to a cache here.
    SSL_CTX_set_session_cache_mode(context->ssl, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(context->ssl, keep_ticket);
    context->system_trust = ca == NULL;
    if ((ca && !(context->ca = copy(ca, ca_size))) || (cert && (!(context->cert = copy(cert, cert_size)) || !(context->key = copy(key, key_size))))) {
        put(error, error_size, "out of memory");
        goto fail;
    }
    context->ca_size = ca_size, context->cert_size = cert_size, context->key_size = key_size;
    return context;
fail:
    prefs_tls_context_free(context);
    return NULL;
}

int prefs_tls_context_load(prefs_tls_context *context, char *error, size_t error_size) {
    if (load(context) == 1) return 1;
    put(error, error_size, context->failure);
    return 0;
}

void prefs_tls_context_free(prefs_tls_context *context) {
    if (!context) return;
    SSL_CTX_free(context->ssl);
    OPENSSL_clear_free(context->key, context->key_size);
    free(context->ca);
    free(context->cert);
    X509_free(context->leaf);
    sk_X509_pop_free(context->chain, X509_free);
    EVP_PKEY_free(context->pkey);
    pthread_mutex_destroy(&context->lock);
    free(context);
}

// MARK: Sessions

prefs_tls_session *prefs_tls_session_new(prefs_tls_context *context, int fd, const char *host, char *error, size_t error_size) {
    CRYPTO_THREAD_run_once(&socket_method_once, make_socket_method);
    prefs_tls_session *session = calloc(1, sizeof *session);
    SSL *ssl = session ? SSL_new(context->ssl) : NULL;
    BIO *bio = socket_method ? BIO_new(socket_method) : NULL;
    if (!ssl || !bio) {
        BIO_free(bio);
        SSL_free(ssl);
        free(session);
        reason(error, error_size, "cannot make a TLS session");
        return NULL;
    }
    session->ssl = ssl;
    session->context = context;
    session->fd = fd;
    session->held = 1;
    SSL_set_app_data(ssl, session);
    BIO_set_data(bio, session);
    SSL_set_bio(ssl, bio, bio);
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    int named;
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1) {
        named = 1;
    } else {
        ERR_clear_error();
        SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        named = SSL_set1_host(ssl, host) == 1 && SSL_set_tlsext_host_name(ssl, host) == 1;
    }
    if (!named) {
        prefs_tls_session_free(session);
        reason(error, error_size, "the host cannot be checked against a certificate");
        return NULL;
    }
    return session;
}

void prefs_tls_session_free(prefs_tls_session *session) {
    if (!session) return;
    SSL_free(session->ssl);
    SSL_SESSION_free(session->ticket);
    free(session->out);
    free(session);
}

/// Whether an error of OpenSSL's queue is an alert by which the server refused a certificate: its
/// own is fine, ours is not (unknown CA, expired, revoked…), or it wants one and got none.
static int is_certificate_alert(unsigned long code) {
    if (ERR_GET_LIB(code) != ERR_LIB_SSL || ERR_GET_REASON(code) < SSL_AD_REASON_OFFSET) return 0;
    switch (ERR_GET_REASON(code) - SSL_AD_REASON_OFFSET) {
    case SSL_AD_HANDSHAKE_FAILURE: case SSL_AD_BAD_CERTIFICATE: case SSL_AD_UNSUPPORTED_CERTIFICATE:
    case SSL_AD_CERTIFICATE_REVOKED: case SSL_AD_CERTIFICATE_EXPIRED: case SSL_AD_CERTIFICATE_UNKNOWN:
    case SSL_AD_UNKNOWN_CA: case SSL_AD_ACCESS_DENIED: case SSL_AD_DECRYPT_ERROR: case SSL_AD_CERTIFICATE_REQUIRED:
        return 1;
    default:
        return 0;
    }
}

/// What a failed call on `ssl` (which returned `result`) asks for, with the reason of a failure:
/// PREFS_TLS_ERROR for a certificate refused (the server's, by the verification; ours, by the
/// server's alert), PREFS_TLS_BROKEN for any other failure of the session (the connection ended,
/// or what came is not TLS).
static long outcome(SSL *ssl, int result, int *system_error, char *error, size_t error_size) {
    int saved = errno;
    *system_error = 0;
    switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
        return PREFS_TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return PREFS_TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) {
            ERR_clear_error();
            *system_error = saved;
            if (saved == 0) return 0; // the peer closed without close_notify
            put(error, error_size, strerror(saved));
            return PREFS_TLS_ERROR;
        }
        break;
    default:
        break;
    }
    long verified = SSL_get_verify_result(ssl);
    if (verified != X509_V_OK) {
        ERR_clear_error();
        snprintf(error, error_size, "the server's certificate was refused: %s", X509_verify_cert_error_string(verified));
        return PREFS_TLS_ERROR;
    }
    int refused = is_certificate_alert(ERR_peek_error());
    reason(error, error_size, "TLS failed");
    return refused ? PREFS_TLS_ERROR : PREFS_TLS_BROKEN;
}

/// The credentials parsed (by the first session that gets here) while the server answers the
/// ClientHello just sent, and the session's reads let go. A session offered for resumption leaves
/// them to the callbacks, which a resumed handshake never calls.
static int release(prefs_tls_session *session, char *error, size_t error_size) {
    prefs_tls_context *context = session->context;
    if (!session->resuming && load(context) != 1) {
        put(error, error_size, context->failure);
        return PREFS_TLS_CREDENTIALS;
    }
    session->held = 0;
    return PREFS_TLS_WANT_READ;
}

int prefs_tls_handshake(prefs_tls_session *session, int *system_error, char *error, size_t error_size) {
    ERR_clear_error();
    int result = SSL_connect(session->ssl);
    if (result == 1) return 0;
    if (session->refused) {
        ERR_clear_error();
        *system_error = 0;
        put(error, error_size, session->refused);
        return PREFS_TLS_CREDENTIALS;
    }
    long step = outcome(session->ssl, result, system_error, error, error_size);
    if (step == 0) {
        // OpenSSL's words for a connection closed in the handshake; TLSFailure.explained says it plainly.
        put(error, error_size, "unexpected eof while reading");
        return PREFS_TLS_BROKEN;
    }
    if (step == PREFS_TLS_WANT_READ && session->held) return release(session, error, error_size);
    return (int)step;
}

long prefs_tls_read(prefs_tls_session *session, void *buffer, size_t count, int *system_error, char *error, size_t error_size) {
    ERR_clear_error();
    // What was written and is still held goes first: an answer never comes before its request.
    switch (session->out ? send_held(session) : 1) {
    case 0:
        return PREFS_TLS_WANT_WRITE;
    case -1:
        *system_error = errno;
        put(error, error_size, strerror(errno));
        return PREFS_TLS_ERROR;
    }
    size_t done = 0;
    int result = SSL_read_ex(session->ssl, buffer, count, &done);
    if (result == 1) return (long)done;
    return outcome(session->ssl, result, system_error, error, error_size);
}

long prefs_tls_write(prefs_tls_session *session, const void *buffer, size_t count, int *system_error, char *error, size_t error_size) {
    ERR_clear_error();
    size_t done = 0;
    int result = SSL_write_ex(session->ssl, buffer, count, &done);
    if (result == 1) return (long)done;
    long step = outcome(session->ssl, result, system_error, error, error_size);
    if (step == 0) {
        *system_error = EPIPE;
        put(error, error_size, strerror(EPIPE));
        return PREFS_TLS_ERROR;
    }
    return step;
}

int prefs_tls_pending(prefs_tls_session *session) { return SSL_pending(session->ssl); }

const char *prefs_tls_session_version(prefs_tls_session *session) { return SSL_get_version(session->ssl); }

int prefs_tls_session_resume(prefs_tls_session *session, const void *der, size_t size) {
    const unsigned char *next = der;
    SSL_SESSION *earlier = size <= 64 * 1024 ? d2i_SSL_SESSION(NULL, &next, (long)size) : NULL;
    ERR_clear_error();
    if (!earlier) return 0;
    // The server's lifetime: the session's timeout, and the ticket's hint where it gave one.
    long lifetime = SSL_SESSION_get_timeout(earlier);
    unsigned long hint = SSL_SESSION_get_ticket_lifetime_hint(earlier);
    if (hint > 0 && hint < (unsigned long)lifetime) lifetime = (long)hint;
    // Compared without a subtraction that could overflow: the times come from the file.
    long now = (long)time(NULL), made = (long)SSL_SESSION_get_time(earlier);
    int offered = next == (const unsigned char *)der + size && SSL_SESSION_is_resumable(earlier) && lifetime > 0 && made <= now &&
                  made > now - lifetime && SSL_set_session(session->ssl, earlier) == 1;
    ERR_clear_error();
    SSL_SESSION_free(earlier);
    session->resuming = offered;
    return offered;
}

int prefs_tls_session_resumed(prefs_tls_session *session) { return SSL_session_reused(session->ssl) == 1; }

int prefs_tls_session_has_ticket(prefs_tls_session *session) { return session->ticket != NULL; }

long prefs_tls_session_ticket(prefs_tls_session *session, void *buffer, size_t size) {
    SSL_SESSION *ticket = session->ticket;
    if (!ticket) return 0;
    session->ticket = NULL;
    int length = SSL_SESSION_is_resumable(ticket) ? i2d_SSL_SESSION(ticket, NULL) : 0;
    unsigned char *into = buffer;
    if (length <= 0 || (size_t)length > size || i2d_SSL_SESSION(ticket, &into) != length) length = 0;
    ERR_clear_error();
    SSL_SESSION_free(ticket);
    return length;
}
