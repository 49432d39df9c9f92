// File operations Swift's Glibc module does not expose.
#ifndef CFILES_H
#define CFILES_H

/// Swaps two paths in one step (Linux renameat2 with RENAME_EXCHANGE): a reader of either path finds
/// the old or the new, never nothing. 0 on success, else -1 with errno set (ENOSYS where unsupported).
int cfiles_exchange(const char *a, const char *b);

#endif
