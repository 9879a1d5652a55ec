// A file's write-back started without waiting (sync_file_range, Linux only), and two fsyncs made at
// once: the blocks are allocated at once, in the file system's running journal transaction, so the
// next fsync of another file on the same file system commits this one's too; and two fsyncs that
// wait for the same journal commit together cost one commit, where one after the other costs a
// commit and a cache flush.
#define _GNU_SOURCE
#include "include/CPrefsSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

int prefs_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

static int fsync_retrying(int fd) {
    while (fsync(fd) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

struct sync_job {
    int fd;
    int error;
};

static void *sync_job_body(void *context) {
    struct sync_job *job = context;
    job->error = fsync_retrying(job->fd);
    return NULL;
}

int prefs_fsync_together(int first, int second, int *second_error) {
    struct sync_job job = { second, 0 };
    pthread_attr_t attributes;
    pthread_t thread;
    int started = 0;
    if (pthread_attr_init(&attributes) == 0) {
        // The thread only waits in fsync: the smallest stack will do.
        pthread_attr_setstacksize(&attributes, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
        started = pthread_create(&thread, &attributes, sync_job_body, &job) == 0;
        pthread_attr_destroy(&attributes);
    }
    int first_error = fsync_retrying(first);
    if (started) {
        pthread_join(thread, NULL);
    } else {
        job.error = fsync_retrying(second);
    }
    *second_error = job.error;
    return first_error;
}
