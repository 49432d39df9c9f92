#define _GNU_SOURCE
#include "CFiles.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

int cfiles_exchange(const char *a, const char *b) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}
