// File and process operations Swift's Glibc module does not expose.
#ifndef CFILES_H
#define CFILES_H
#include <sys/types.h>

/// Swaps two paths in one step (Linux renameat2 with RENAME_EXCHANGE): a reader of either path finds
/// the old or the new, never nothing. 0 on success, else -1 with errno set (ENOSYS where unsupported).
int cfiles_exchange(const char *a, const char *b);

/// Starts `path` (no PATH search) with `argv` and `envp` in a process group of its own, standard input from
/// /dev/null, output and error into the files named (created or truncated), killed by the kernel if this
/// process dies first (PR_SET_PDEATHSIG). Its pid, or -1 with `*error` set to the errno of the failed step
/// (an exec failure included).
pid_t cfiles_spawn(const char *path, char *const argv[], char *const envp[], const char *out, const char *err, int *error);

/// As `cfiles_spawn`, for a long-lived child spoken to through pipes: `*to_child` is written to its standard
/// input, `*from_child` reads its standard output (both close on exec); its error goes to the file `err`.
pid_t cfiles_spawn_piped(const char *path, char *const argv[], char *const envp[], const char *err, int *to_child,
                         int *from_child, int *error);

/// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): a grandchild whose
/// parent exits becomes this process's child instead of init's, so it can be found and stopped.
int cfiles_become_subreaper(void);

#endif
