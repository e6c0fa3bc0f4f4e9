#ifndef CIPHERDEX_CSYSTEMSHIMS_SHIM_H
#define CIPHERDEX_CSYSTEMSHIMS_SHIM_H

/*
 * libc calls that Swift's Glibc module does not import. No library is linked: these are
 * declarations over the C library the toolchain already links.
 */

#if defined(__linux__)
/* Declared in <fcntl.h> only under _GNU_SOURCE, which the Glibc module is built without. */
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);
#endif

/*
 * Starts write-back of the dirty pages of `fd` in [offset, offset + count) without waiting for
 * it (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so that a later fsync finds less to do.
 * Durability still comes only from fsync. Returns 0, or -1 with errno; elsewhere a no-op.
 */
static inline int cdx_start_writeback(int fd, long long offset, long long count) {
#if defined(__linux__)
    return sync_file_range(fd, offset, count, 2u /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd;
    (void)offset;
    (void)count;
    return 0;
#endif
}

#endif
