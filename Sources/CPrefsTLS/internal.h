// What the files of the TLS target share; not part of its interface (include/CPrefsTLS.h).
#ifndef CPREFS_TLS_INTERNAL_H
#define CPREFS_TLS_INTERNAL_H

#include <stddef.h>

#include <openssl/evp.h>
#include <openssl/ssl.h>

/// Sets up OpenSSL's view of the CPU before its first use (cpu.c).
void prefs_tls_cpu_setup(void);

/// Sets OpenSSL up before the first context is made (setup.c): lean when the program has OpenSSL to
/// itself (`own_process`).
void prefs_tls_set_up(int own_process);

/// The text of an error code of OpenSSL's queue ("certificate verify failed"), or NULL (setup.c).
const char *prefs_tls_error_text(unsigned long code);

/// Adds every certificate of the PEM text to the store (pem.c); how many.
int prefs_tls_add_trust(X509_STORE *store, const void *pem, size_t size);

/// Whether the PEM private key is encrypted (pem.c).
int prefs_tls_key_is_encrypted(const char *pem, size_t size);

/// The private key in PEM text, or NULL (pem.c).
EVP_PKEY *prefs_tls_read_key(const void *pem, size_t size);

#endif
