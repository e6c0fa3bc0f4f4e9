#ifndef CIPHERDEX_CSYSTEMSHIMS_SHIM_H
#define CIPHERDEX_CSYSTEMSHIMS_SHIM_H

/*
 * libc calls that Swift's Glibc module does not import. No library is linked: these are
 * declarations over the C library the toolchain already links.
 */

#if defined(__linux__)
#include <fcntl.h>
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

/*
 * Waits until the write-back of [offset, offset + count) of `fd` (started or not) is done, then
 * tells the kernel that the range's pages, now clean, will not be needed again (Linux
 * `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`, then `posix_fadvise(DONTNEED)`), so a
 * long sequential write reuses a few MiB of page cache instead of taking fresh memory for every
 * page. Returns 0, or -1 with errno when the wait fails; elsewhere a no-op. Durability still
 * comes only from fsync.
 */
static inline int cdx_finish_writeback(int fd, long long offset, long long count) {
#if defined(__linux__)
    if (sync_file_range(fd, offset, count, 7u /* WAIT_BEFORE | WRITE | WAIT_AFTER */) != 0) {
        return -1;
    }
    (void)posix_fadvise(fd, (off_t)offset, (off_t)count, POSIX_FADV_DONTNEED);
    return 0;
#else
    (void)fd;
    (void)offset;
    (void)count;
    return 0;
#endif
}

#if defined(__linux__)
#include <sys/prctl.h>
#endif

/*
 * Sets whether the process is dumpable (Linux `prctl(PR_SET_DUMPABLE, value)`, value 0 or 1).
 * Not dumpable: the kernel writes no core file of it (nor hands one to a core_pattern pipe such as
 * systemd-coredump), and processes of the same user without CAP_SYS_PTRACE cannot attach to it or
 * read its memory. `execve` makes a program dumpable again. Returns 0, or -1 with errno; elsewhere
 * 0 and nothing changes.
 */
static inline int cdx_set_dumpable(int value) {
#if defined(__linux__)
    return prctl(PR_SET_DUMPABLE, (unsigned long)value, 0L, 0L, 0L);
#else
    (void)value;
    return 0;
#endif
}

/* 1 when the process is dumpable (Linux `prctl(PR_GET_DUMPABLE)`), 0 when not; elsewhere 1. */
static inline int cdx_core_dumps_enabled(void) {
#if defined(__linux__)
    return prctl(PR_GET_DUMPABLE, 0L, 0L, 0L, 0L) > 0;
#else
    return 1;
#endif
}

/*
 * Keeps the memory a short-lived process frees for its next allocations (glibc `mallopt`):
 * blocks up to `mmap_threshold` bytes from the heap rather than their own mappings, up to
 * `trim_threshold` freed bytes kept at the top of the heap, and `top_pad` more bytes each time it
 * grows. Returns 1 when glibc took all three, 0 otherwise; elsewhere 0 and nothing changes.
 */
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif
static inline int cdx_keep_freed_memory(int mmap_threshold, int trim_threshold, int top_pad) {
#if defined(__linux__) && defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1
        && mallopt(M_TOP_PAD, top_pad) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    (void)top_pad;
    return 0;
#endif
}

/*
 * Grows (or shrinks) the anonymous private mapping at `address` from `old_size` to `new_size`
 * bytes, moving it if it must without copying its pages (Linux `mremap(MREMAP_MAYMOVE)`: the
 * page tables move, the pages stay). Elsewhere a new mapping, a copy and an unmap. Returns the
 * mapping's address, or NULL with errno.
 */
#include <sys/mman.h>
#include <string.h>
#if defined(__linux__)
extern void *mremap(void *old_address, size_t old_size, size_t new_size, int flags, ...);
#endif
/// Moves the `length` bytes of the mapping at `from` to `to` (both page-aligned; `to` inside
/// another mapping of the caller, whose pages there are replaced): on Linux the page table
/// entries move (`mremap` with MREMAP_FIXED), elsewhere the bytes are copied and `from` unmapped.
/// Returns 0 on success, -1 when the system refuses (nothing changed).
static inline int cdx_move_mapping(void *from, size_t length, void *to) {
#if defined(__linux__)
    void *moved = mremap(from, length, length, 1 /* MREMAP_MAYMOVE */ | 2 /* MREMAP_FIXED */, to);
    return moved == to ? 0 : -1;
#else
    memcpy(to, from, length);
    munmap(from, length);
    return 0;
#endif
}

static inline void *cdx_grow_mapping(void *address, size_t old_size, size_t new_size) {
#if defined(__linux__)
    void *moved = mremap(address, old_size, new_size, 1 /* MREMAP_MAYMOVE */);
    return moved == MAP_FAILED ? (void *)0 : moved;
#else
    void *moved = mmap(0, new_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (moved == MAP_FAILED) {
        return (void *)0;
    }
    memcpy(moved, address, old_size < new_size ? old_size : new_size);
    munmap(address, old_size);
    return moved;
#endif
}

#include <signal.h>
#include <string.h>
#include <unistd.h>

/*
 * The handler of `cdx_quiet_crash_reports`: one fixed line on standard error, then the signal
 * again with its default action (the process ends by it, as it would have; it is not dumpable).
 */
static inline void cdx_quiet_crash_handler(int signal_number) {
    static const char message[] =
        "cipherdex: crashed; no backtrace is printed (its register dump could show key bytes)\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    raise(signal_number);
}

/*
 * Replaces the handlers of the crash signals (SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT)
 * that Swift's runtime installs for its backtracer: its report prints the registers and the bytes
 * around the addresses they hold, which showed 16 hex digits of a key file when an allocation
 * under `ulimit -v` trapped (environment audit 28). The handler runs on its own stack (a stack
 * overflow still reaches it) and resets itself. Returns 0, or -1 with errno.
 */
static inline int cdx_quiet_crash_reports(void) {
    static char alternate[1 << 16];
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = alternate;
    stack.ss_size = sizeof alternate;
    if (sigaltstack(&stack, 0) != 0) {
        return -1;
    }
    const int signals[] = {SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
    for (unsigned index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cdx_quiet_crash_handler;
        action.sa_flags = SA_ONSTACK | SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        if (sigaction(signals[index], &action, 0) != 0) {
            return -1;
        }
    }
    return 0;
}

#endif
