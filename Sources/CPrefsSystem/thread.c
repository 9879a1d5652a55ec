// Starting a helper thread on another CPU. A thread that pthread_create leaves to the scheduler may
// start on the creator's own CPU and take turns with it for the first milliseconds, until load
// balancing moves one of them — the whole life of a helper that skips half of a 6 MB suite (measured
// on a 2-CPU VM: the helper ran to its end before pthread_create returned, so two threads took as
// long as one). Placed on another allowed CPU it starts at once; it then widens its affinity back to
// the creator's, so a busy CPU cannot hold it afterwards.
#define _GNU_SOURCE
#include "CPrefsSystem.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

struct prefs_start {
    void *(*body)(void *);
    void *context;
    cpu_set_t allowed;
};

static void *prefs_started(void *argument) {
    struct prefs_start start = *(struct prefs_start *)argument;
    free(argument);
    pthread_setaffinity_np(pthread_self(), sizeof start.allowed, &start.allowed);
    return start.body(start.context);
}

int prefs_start_thread_elsewhere(pthread_t *thread, void *(*body)(void *), void *context) {
    struct prefs_start *start = malloc(sizeof *start);
    if (!start) return -1;
    start->body = body;
    start->context = context;
    int here = sched_getcpu(), other = -1;
    if (sched_getaffinity(0, sizeof start->allowed, &start->allowed) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE && other < 0; cpu++)
            if (cpu != here && CPU_ISSET(cpu, &start->allowed)) other = cpu;
    }
    if (other < 0) {  // One CPU (or too many to name): a second thread would only take turns.
        free(start);
        return -1;
    }
    cpu_set_t placed;
    CPU_ZERO(&placed);
    CPU_SET(other, &placed);
    pthread_attr_t attributes;
    int result = pthread_attr_init(&attributes);
    if (result == 0) {
        pthread_attr_setaffinity_np(&attributes, sizeof placed, &placed);
        result = pthread_create(thread, &attributes, prefs_started, start);
        pthread_attr_destroy(&attributes);
    }
    if (result != 0) free(start);
    return result;
}
