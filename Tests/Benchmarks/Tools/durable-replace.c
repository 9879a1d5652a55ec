// The floor of a durable small write, for bench-durable.sh: what any program that replaces a file
// safely must do, and nothing else. Takes the file's lock (flock), reads it, writes the same bytes to
// a new temporary file in the same directory (O_EXCL), fsyncs it, renames it over the file and
// fsyncs the directory — the steps `prefs write` takes, without decoding or encoding anything.
//   durable-replace FILE
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void fail(const char *what, const char *path) {
    perror(path);
    fprintf(stderr, "durable-replace: %s failed\n", what);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: durable-replace FILE\n");
        return 64;
    }
    const char *path = argv[1];
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) fail("open", path);
    if (flock(file, LOCK_EX) != 0) fail("flock", path);
    struct stat info;
    if (fstat(file, &info) != 0) fail("fstat", path);
    char *bytes = malloc(info.st_size + 1);
    ssize_t count = read(file, bytes, info.st_size + 1);
    if (count < 0) fail("read", path);

    char *copy = strdup(path), *directory = dirname(copy);
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s/.durable-replace.%d", directory, (int)getpid());
    int out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) fail("open", temporary);
    if (write(out, bytes, count) != count) fail("write", temporary);
    if (fsync(out) != 0) fail("fsync", temporary);
    if (close(out) != 0) fail("close", temporary);
    if (rename(temporary, path) != 0) fail("rename", temporary);
    int parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0 || fsync(parent) != 0) fail("fsync", directory);
    close(parent);
    close(file);
    return 0;
}
