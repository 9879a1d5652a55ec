// Runs a command and prints its peak resident set size in KiB (wait4's ru_maxrss), for
// bench-memory.sh, or with --faults the page faults it took (ru_minflt + ru_majflt), for
// bench-startup.sh. Written in C so that the count starts small: a child forked from a large process
// (Python, say) carries that process's pages into the figure until it execs.
//   peak-rss [--faults] COMMAND [ARG...]     (its standard output goes to /dev/null; the figure to ours)
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int faults = argc > 1 && strcmp(argv[1], "--faults") == 0;
    argc -= faults;
    argv += faults;
    if (argc < 2) {
        fprintf(stderr, "usage: peak-rss [--faults] COMMAND [ARG...]\n");
        return 64;
    }
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 71; }
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) { perror("wait4"); return 71; }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "peak-rss: %s failed (status %d)\n", argv[1], status);
        return 1;
    }
    printf("%ld\n", faults ? usage.ru_minflt + usage.ru_majflt : usage.ru_maxrss);
    return 0;
}
