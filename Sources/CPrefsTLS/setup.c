// OpenSSL's set-up before the first TLS context, and the text of its errors.
//
// At its first use OpenSSL 3.0 does much that a program sharing it with other code may rely on and
// a TLS one-key read of prefs does not need (callgrind, instructions of a read with an ECDSA key, of
// about 31 million before): reading openssl.cnf (0.8 M with Debian's), loading the text of every
// error of every library (1 M), filling the legacy table of cipher names (EVP_get_cipherbyname),
// which it then copies into the name map its providers' fetches use (about 2.3 M; the providers'
// ciphers carry their own names, and libssl 3.0 fetches them by those: the same ciphers are offered
// without it), and a clean-up at exit (0.8 M). A program that has OpenSSL to itself, as the prefs
// command has, asks for none of it (`own_process`); the texts of errors are then loaded when one is
// first reported. These choices hold for the whole process and the first to set OpenSSL up wins,
// so a program that shares OpenSSL with other code (a library linking PrefsCore) keeps OpenSSL's
// defaults. Not reading openssl.cnf is what etcdctl, a Go program, does too: TLS 1.2 or later
// (the context says so) with OpenSSL's built-in ciphers and security level.
//
// OpenSSL 3.0 loads the texts as it starts and no longer offers to load them later but through the
// per-library ERR_load_*_strings it deprecated then (public, and still there in 3.x): used here on
// the way to an error message only.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "internal.h"

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

void prefs_tls_set_up(int own_process) {
    prefs_tls_cpu_setup();
    if (!own_process) return;
    OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_SSL_STRINGS | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS
                         | OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ATEXIT,
                     NULL);
}

static CRYPTO_ONCE strings_once = CRYPTO_ONCE_STATIC_INIT;

/// The texts of the libraries whose errors a TLS context or session reports.
static void load_strings(void) {
    ERR_load_ERR_strings();
    ERR_load_SSL_strings();
    ERR_load_X509_strings();
    ERR_load_X509V3_strings();
    ERR_load_PEM_strings();
    ERR_load_ASN1_strings();
    ERR_load_EVP_strings();
    ERR_load_EC_strings();
    ERR_load_RSA_strings();
    ERR_load_BIO_strings();
    ERR_load_BUF_strings();
    ERR_load_OBJ_strings();
    ERR_load_CRYPTO_strings();
}

const char *prefs_tls_error_text(unsigned long code) {
    const char *text = ERR_reason_error_string(code);
    if (text) return text;
    CRYPTO_THREAD_run_once(&strings_once, load_strings);
    return ERR_reason_error_string(code);
}
