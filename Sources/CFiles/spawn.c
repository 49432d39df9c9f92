#define _GNU_SOURCE
#include "CFiles.h"
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_onto(const char *path, int flags, int target) {
    int fd = open(path, flags, 0600);
    if (fd < 0) return -1;
    if (fd != target) {
        if (dup2(fd, target) < 0) return -1;
        close(fd);
    }
    return 0;
}

/// Starts the child; its standard input is `in_fd` (or /dev/null when -1), its output `out_fd` (or the file
/// `out` when -1), its error the file `err`.
static pid_t spawn_onto(const char *path, char *const argv[], char *const envp[], int in_fd, int out_fd, const char *out,
                        const char *err, int *error) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) { *error = errno; return -1; }
    pid_t parent = getpid();
    // vfork, not fork: the child borrows the parent's memory until execve instead of copying its page tables,
    // which cost a large parent (a run holding its catalogs) more than the child's whole start. Every signal is
    // blocked across it, so no handler of ours runs in the child on the parent's memory.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t pid = vfork();
    if (pid == 0) {
        // Only system calls from here to execve, on this frame: the child shares the parent's memory.
        for (int signal = 1; signal < NSIG; signal++) {  // handlers back to their defaults, in the child only
            struct sigaction action;
            if (sigaction(signal, NULL, &action) == 0 && action.sa_handler != SIG_IGN && action.sa_handler != SIG_DFL) {
                action.sa_handler = SIG_DFL;
                action.sa_flags = 0;
                sigaction(signal, &action, NULL);
            }
        }
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);  // the parent died before the line above
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int input = in_fd >= 0 ? (dup2(in_fd, 0) < 0 ? -1 : 0) : open_onto("/dev/null", O_RDONLY, 0);
        int output = out_fd >= 0 ? (dup2(out_fd, 1) < 0 ? -1 : 0) : open_onto(out, O_WRONLY | O_CREAT | O_TRUNC, 1);
        if (input == 0 && output == 0 && open_onto(err, O_WRONLY | O_CREAT | O_TRUNC, 2) == 0) execve(path, argv, envp);
        int e = errno;
        (void)!write(report[1], &e, sizeof e);
        _exit(127);
    }
    int spawned = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (pid < 0) { *error = spawned; close(report[0]); close(report[1]); return -1; }
    close(report[1]);
    int e = 0;
    ssize_t n;
    do { n = read(report[0], &e, sizeof e); } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof e) {  // exec failed: the child is gone; reap it
        int status;
        waitpid(pid, &status, 0);
        *error = e;
        return -1;
    }
    return pid;
}

pid_t cfiles_spawn(const char *path, char *const argv[], char *const envp[], const char *out, const char *err, int *error) {
    return spawn_onto(path, argv, envp, -1, -1, out, err, error);
}

pid_t cfiles_spawn_piped(const char *path, char *const argv[], char *const envp[], const char *err, int *to_child,
                         int *from_child, int *error) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) { *error = errno; return -1; }
    if (pipe2(out, O_CLOEXEC) != 0) { *error = errno; close(in[0]); close(in[1]); return -1; }
    pid_t pid = spawn_onto(path, argv, envp, in[0], out[1], NULL, err, error);
    close(in[0]);
    close(out[1]);
    if (pid < 0) { close(in[1]); close(out[0]); return -1; }
    *to_child = in[1];
    *from_child = out[0];
    return pid;
}

int cfiles_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1); }
