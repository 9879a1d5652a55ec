// Starting a command as a job, as a shell does: in a process group of its own, made the terminal's
// foreground group by the child itself before it runs (so it may read the terminal from its first
// instruction), dying with the thread that started it, its signal mask and SIGPIPE set as asked
// (exec itself sets caught signals back to their default and leaves ignored ones ignored).
// Between fork and exec the child calls only async-signal-safe functions.
#define _GNU_SOURCE
#include "include/CPrefsSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t prefs_start_job(char *const argv[], char *const envp[], int terminal, const sigset_t *mask, int pipe_default, int *error) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) { *error = errno; return -1; }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        *error = errno;
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (terminal >= 0) {
            sigset_t ttou, old;
            sigemptyset(&ttou);
            sigaddset(&ttou, SIGTTOU);
            sigprocmask(SIG_BLOCK, &ttou, &old);
            tcsetpgrp(terminal, getpid());
            sigprocmask(SIG_SETMASK, &old, NULL);
        }
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        struct sigaction action = {0};
        action.sa_handler = pipe_default ? SIG_DFL : SIG_IGN;
        sigaction(SIGPIPE, &action, NULL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        execvpe(argv[0], argv, envp);
        int failure = errno;
        (void)!write(report[1], &failure, sizeof failure);
        _exit(127);
    }
    close(report[1]);
    // The parent does it too: whichever runs first, the group exists before anyone signals it.
    setpgid(pid, pid);
    int failure = 0;
    ssize_t got;
    while ((got = read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {}
    close(report[0]);
    if (got == (ssize_t)sizeof failure) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        *error = failure;
        return -1;
    }
    return pid;
}
