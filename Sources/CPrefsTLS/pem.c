// Certificates and private keys from PEM text, with as little of OpenSSL 3.0's machinery as the
// text needs: it sets up a decoder for every key type and form it knows unless it is told which.
#include "internal.h"

#include <string.h>

#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

int prefs_tls_add_trust(X509_STORE *store, const void *pem, size_t size) {
    BIO *bio = BIO_new_mem_buf(pem, (int)size);
    if (!bio) return 0;
    int added = 0;
    X509 *certificate;
    // Blocks of other kinds are passed over; the end of the text reads as "no start line".
    while ((certificate = PEM_read_bio_X509_AUX(bio, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, certificate)) added++;
        X509_free(certificate);
    }
    BIO_free(bio);
    unsigned long code = ERR_peek_error();
    if (added > 0 || (ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE)) ERR_clear_error();
    return added;
}

/// Whether `text` occurs in the `size` bytes at `pem`.
static int contains(const char *pem, size_t size, const char *text) {
    size_t length = strlen(text);
    for (size_t at = 0; at + length <= size; at++) {
        if (memcmp(pem + at, text, length) == 0) return 1;
    }
    return 0;
}

/// PKCS#8's "ENCRYPTED PRIVATE KEY", or the older form's "Proc-Type: 4,ENCRYPTED" header.
int prefs_tls_key_is_encrypted(const char *pem, size_t size) {
    return contains(pem, size, "-----BEGIN ENCRYPTED PRIVATE KEY-----") || contains(pem, size, "Proc-Type: 4,ENCRYPTED");
}

/// The passphrase asked for by a decoder: none, ever (OpenSSL would otherwise ask the terminal).
static int no_passphrase(char *pass, size_t size, size_t *length, const OSSL_PARAM params[], void *arg) {
    (void)pass, (void)size, (void)params, (void)arg;
    *length = 0;
    return 0;
}

/// Decodes a key pair of `type` (NULL: any) in `structure` (NULL: any) from `data` in `input` form
/// ("PEM", "DER").
static EVP_PKEY *decode_key(const char *input, const char *structure, const char *type, const unsigned char *data, size_t size) {
    EVP_PKEY *pkey = NULL;
    OSSL_DECODER_CTX *decoder = OSSL_DECODER_CTX_new_for_pkey(&pkey, input, structure, type, EVP_PKEY_KEYPAIR, NULL, NULL);
    int decoded = decoder && OSSL_DECODER_CTX_set_passphrase_cb(decoder, no_passphrase, NULL) == 1
        && OSSL_DECODER_from_data(decoder, &data, &size) == 1;
    OSSL_DECODER_CTX_free(decoder);
    if (decoded) return pkey;
    EVP_PKEY_free(pkey);
    return NULL;
}

/// A PKCS#8 key (DER), decoded for the type its algorithm names: its object identifier in dotted
/// form, which OpenSSL's decoders take as a name of the type ("1.2.840.10045.2.1": EC).
static EVP_PKEY *decode_pkcs8(const unsigned char *der, long length) {
    const unsigned char *at = der;
    PKCS8_PRIV_KEY_INFO *info = d2i_PKCS8_PRIV_KEY_INFO(NULL, &at, length);
    const ASN1_OBJECT *algorithm = NULL;
    char type[80];
    int named = info && PKCS8_pkey_get0(&algorithm, NULL, NULL, NULL, info) == 1
        && OBJ_obj2txt(type, sizeof type, algorithm, 1) > 0;
    PKCS8_PRIV_KEY_INFO_free(info);
    return named ? decode_key("DER", "PrivateKeyInfo", type, der, (size_t)length) : NULL;
}

/// The first PEM block that is a private key (an "EC PARAMETERS" block or a certificate before it
/// passed over), decoded as its label says: "PRIVATE KEY" is PKCS#8 (`openssl genpkey`, `req
/// -nodes`), "EC PRIVATE KEY" SEC1 and "RSA PRIVATE KEY" PKCS#1 (`ecparam -genkey`, `genrsa
/// -traditional`). About 5 million instructions less than OpenSSL's decoders of every kind, a
/// fifth of all a TLS one-key read did with a PKCS#8 key. A key of another label, or one these cannot
/// decode, is left to all of them.
EVP_PKEY *prefs_tls_read_key(const void *pem, size_t size) {
    BIO *bio = BIO_new_mem_buf(pem, (int)size);
    char *name = NULL, *header = NULL;
    unsigned char *der = NULL;
    long length = 0;
    EVP_PKEY *pkey = NULL;
    int found = 0;
    while (!found && bio && PEM_read_bio(bio, &name, &header, &der, &length) == 1) {
        found = strstr(name, "PRIVATE KEY") != NULL;
        if (strcmp(name, "PRIVATE KEY") == 0) pkey = decode_pkcs8(der, length);
        else if (strcmp(name, "EC PRIVATE KEY") == 0) pkey = decode_key("DER", "type-specific", "EC", der, (size_t)length);
        else if (strcmp(name, "RSA PRIVATE KEY") == 0) pkey = decode_key("DER", "type-specific", "RSA", der, (size_t)length);
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(der);
    }
    BIO_free(bio);
    if (!pkey) pkey = decode_key("PEM", NULL, NULL, pem, size);
    ERR_clear_error(); // "unsupported", "no start line": the caller says what was wanted
    return pkey;
}
