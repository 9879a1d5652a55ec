// Starting a file's write-back without waiting for it (sync_file_range, Linux only): the blocks are
// allocated now, in the file system's running journal transaction, so the next fsync of another file
// on the same file system commits this one's too.
#define _GNU_SOURCE
#include "include/CPrefsSystem.h"
#include <fcntl.h>

int prefs_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}
