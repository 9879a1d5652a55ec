// The floor of a TLS one-key read from C, for bench-etcd-tls.sh: the same OpenSSL calls prefs makes
// (Sources/CPrefsTLS, set up as the command sets it up), from a program that does nothing else —
// reads the three PEM files, connects to 127.0.0.1:PORT, makes the handshake, POSTs one range
// request for the key `plain/k` and reads the first piece of the answer. With SESSION, a file, it
// offers the session that file holds for resumption, and after a full handshake writes the one the
// server gave there (prefs keeps its own in $XDG_RUNTIME_DIR/prefs/, with the time it was made).
//   tls-read CA CERT KEY PORT [SESSION]
#include "CPrefsTLS.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    char *bytes = malloc(1 << 20);
    if (!file || !bytes) exit(74);
    *size = fread(bytes, 1, 1 << 20, file);
    fclose(file);
    return bytes;
}

static void await(int fd, long want) {
    struct pollfd ready = {fd, want == PREFS_TLS_WANT_WRITE ? POLLOUT : POLLIN, 0};
    poll(&ready, 1, 5000);
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) return 64;
    size_t ca_size, cert_size, key_size;
    char *ca = slurp(argv[1], &ca_size), *cert = slurp(argv[2], &cert_size), *key = slurp(argv[3], &key_size);
    char error[256];
    prefs_tls_context *context = prefs_tls_context_new(1, ca, ca_size, cert, cert_size, key, key_size, error, sizeof error);
    if (!context) return fprintf(stderr, "%s\n", error), 65;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[4])), .sin_addr.s_addr = htonl(0x7F000001)};
    connect(fd, (struct sockaddr *)&address, sizeof address);
    await(fd, PREFS_TLS_WANT_WRITE);
    prefs_tls_session *session = prefs_tls_session_new(context, fd, "127.0.0.1", error, sizeof error);
    if (!session) return fprintf(stderr, "%s\n", error), 69;
    static unsigned char kept[16384];
    FILE *file = argc == 6 ? fopen(argv[5], "rb") : NULL;
    if (file) {
        prefs_tls_session_resume(session, kept, fread(kept, 1, sizeof kept, file));
        fclose(file);
    }
    int system_error;
    long step;
    while ((step = prefs_tls_handshake(session, &system_error, error, sizeof error)) != 0) {
        if (step != PREFS_TLS_WANT_READ && step != PREFS_TLS_WANT_WRITE) return fprintf(stderr, "%s\n", error), 69;
        await(fd, step);
    }
    const char *body = "{\"key\":\"cGxhaW4vaw==\"}";
    char request[256];
    int length = snprintf(request, sizeof request, "POST /v3/kv/range HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                                   "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
    while ((step = prefs_tls_write(session, request, (size_t)length, &system_error, error, sizeof error)) < 0) {
        if (step != PREFS_TLS_WANT_READ && step != PREFS_TLS_WANT_WRITE) return 74;
        await(fd, step);
    }
    char answer[4096];
    while ((step = prefs_tls_read(session, answer, sizeof answer, &system_error, error, sizeof error)) < 0) {
        if (step != PREFS_TLS_WANT_READ && step != PREFS_TLS_WANT_WRITE) return 74;
        await(fd, step);
    }
    long size = argc == 6 && !prefs_tls_session_resumed(session) ? prefs_tls_session_ticket(session, kept, sizeof kept) : 0;
    if (size > 0 && (file = fopen(argv[5], "wb")) != NULL) {
        fwrite(kept, 1, (size_t)size, file);
        fclose(file);
    }
    prefs_tls_session_free(session);
    close(fd);
    prefs_tls_context_free(context);
    return step > 12 && memcmp(answer, "HTTP/1.1 200", 12) == 0 ? 0 : 1;
}
