// Cipherdex's VFS: the default one, with each shared-memory region backed by disk blocks before
// SQLite writes to it, the real cause of a failed open kept, read failures recorded and syncs
// interrupted by a signal retried (see CSQLiteVFS.h).
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "CSQLiteVFS.h"

/// An open file: SQLite's file of the parent VFS right after it, in the same allocation.
typedef struct cdx_file {
    sqlite3_file base;
    sqlite3_file *real;
} cdx_file;

static sqlite3_vfs *parent_vfs;
static sqlite3_vfs cdx_vfs;
static const char *registered_name;
static pthread_once_t registration = PTHREAD_ONCE_INIT;

/// The parent VFS's `open` system call, which `cdx_sys_open` wraps (NULL until registered).
typedef int (*cdx_open_call)(const char *, int, int);
static cdx_open_call parent_open_call;
/// The `errno` of the first failed `open` (other than EINTR, which SQLite retries) on this thread
/// since `cdx_open` began, 0 when none: the parent VFS retries a failed read-write open
/// read-only, and that second open's `errno` (ENOENT for a `-wal` that is not there) replaces
/// the first's, the real cause.
static _Thread_local int first_open_errno;
/// The `errno` of the first failed read (not a short read) on this thread since
/// `cipherdex_vfs_reset_read_failure`, 0 when none.
static _Thread_local int first_read_errno;
/// How often a sync interrupted by a signal (EINTR) is retried before its failure is reported.
enum { cdx_sync_retries = 64 };

static sqlite3_file *real_file(sqlite3_file *file) { return ((cdx_file *)file)->real; }

static int cdx_close(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xClose(real);
}

/// The `errno` the parent VFS kept for `real`'s last failed system call (0 when unknown).
static int last_errno(sqlite3_file *real) {
    int code = 0;
    if (real->pMethods->xFileControl(real, SQLITE_FCNTL_LAST_ERRNO, &code) != SQLITE_OK) {
        return 0;
    }
    return code;
}

/// Reads as the parent does, and records the first failed read of this thread: SQLCipher takes a
/// failed read of the database's salt for a new database, and reports the page that then does
/// not decrypt as not a database.
static int cdx_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = real_file(file);
    int code = real->pMethods->xRead(real, buffer, amount, offset);
    if (code != SQLITE_OK && code != SQLITE_IOERR_SHORT_READ && first_read_errno == 0) {
        int cause = last_errno(real);
        first_read_errno = cause != 0 ? cause : EIO;
    }
    return code;
}

static int cdx_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xWrite(real, buffer, amount, offset);
}

static int cdx_truncate(sqlite3_file *file, sqlite3_int64 size) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xTruncate(real, size);
}

/// Syncs as the parent does, again when a signal interrupted the sync (EINTR): the parent
/// reports it as a failed sync, though nothing failed.
static int cdx_sync(sqlite3_file *file, int flags) {
    sqlite3_file *real = real_file(file);
    int code = real->pMethods->xSync(real, flags);
    for (int retry = 0; retry < cdx_sync_retries && code == SQLITE_IOERR_FSYNC && last_errno(real) == EINTR;
         retry++) {
        code = real->pMethods->xSync(real, flags);
    }
    return code;
}

static int cdx_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFileSize(real, size);
}

static int cdx_lock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xLock(real, level);
}

static int cdx_unlock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xUnlock(real, level);
}

static int cdx_check_reserved_lock(sqlite3_file *file, int *reserved) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xCheckReservedLock(real, reserved);
}

static int cdx_file_control(sqlite3_file *file, int operation, void *argument) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFileControl(real, operation, argument);
}

static int cdx_sector_size(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xSectorSize(real);
}

static int cdx_device_characteristics(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xDeviceCharacteristics(real);
}

/// Maps region `region` as the parent does, then faults its pages in writable, which makes the
/// file system give them blocks (or fail, where a later write would raise SIGBUS). On failure
/// `*mapped` is NULL: SQLite keeps the pointer it is given even with an error, and would write
/// through it later. SQLite keeps each region's pointer once mapped, so this runs once per region
/// and connection (again for pages already present it costs little).
static int cdx_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **mapped) {
    sqlite3_file *real = real_file(file);
    int code = real->pMethods->xShmMap(real, region, size, extend, mapped);
    if (code != SQLITE_OK || *mapped == NULL || size <= 0) {
        return code;
    }
#ifdef MADV_POPULATE_WRITE
    if (madvise((void *)*mapped, (size_t)size, MADV_POPULATE_WRITE) != 0) {
        // EFAULT: a write would raise SIGBUS (no block for a hole: the disk is full); ENOMEM
        // and EAGAIN: no memory now. EINVAL (a kernel before 5.14, an unaligned region) and
        // EPERM leave the region as SQLite alone would.
        if (errno == EFAULT || errno == ENOMEM || errno == EAGAIN) {
            *mapped = NULL;
            return errno == EFAULT ? SQLITE_FULL : SQLITE_IOERR_NOMEM;
        }
    }
#endif
    return code;
}

static int cdx_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmLock(real, offset, count, flags);
}

static void cdx_shm_barrier(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    real->pMethods->xShmBarrier(real);
}

static int cdx_shm_unmap(sqlite3_file *file, int delete_flag) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmUnmap(real, delete_flag);
}

static int cdx_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xFetch(real, offset, amount, pointer);
}

static int cdx_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xUnfetch(real, offset, pointer);
}

#define CDX_IO_METHODS(version)                                                                     \
    {                                                                                               \
        version, cdx_close, cdx_read, cdx_write, cdx_truncate, cdx_sync, cdx_file_size, cdx_lock,   \
            cdx_unlock, cdx_check_reserved_lock, cdx_file_control, cdx_sector_size,                 \
            cdx_device_characteristics, cdx_shm_map, cdx_shm_lock, cdx_shm_barrier, cdx_shm_unmap, \
            cdx_fetch, cdx_unfetch                                                                  \
    }

/// One table per version of the parent's methods, so SQLite asks of a file only what its real
/// methods have (a version 1 file has no shared memory; version 2 no xFetch).
static const sqlite3_io_methods methods_by_version[4] = {
    CDX_IO_METHODS(1), CDX_IO_METHODS(1), CDX_IO_METHODS(2), CDX_IO_METHODS(3)};

/// The parent's `open` system call, recording the first failure's `errno` (`first_open_errno`).
/// Read with acquire ordering (written with release before the swap): a thread of the host
/// already inside the unix VFS when the swap happens never calls a pointer it sees unset; were it
/// unset, `open` itself is what the unix VFS calls by default.
static int cdx_sys_open(const char *path, int flags, int mode) {
    cdx_open_call parent = __atomic_load_n(&parent_open_call, __ATOMIC_ACQUIRE);
    int descriptor = parent != NULL ? parent(path, flags, mode) : open(path, flags, mode);
    if (descriptor < 0 && errno != EINTR && first_open_errno == 0) {
        first_open_errno = errno;
    }
    return descriptor;
}

/// Whether `code` (an `errno`) is a reason to open a file read-only that could not be opened
/// read-write: no permission, a read-only file system.
static int is_permission(int code) { return code == EACCES || code == EPERM || code == EROFS; }

/// Opens as the parent does, but a failed open reports the `errno` of its first attempt (the
/// parent's read-only retry would replace it), and a read-write open that the parent could only
/// do read-only for another reason than permissions (a full disk, an input/output error, too
/// many open files) fails with SQLITE_CANTOPEN and that `errno`, rather than leaving a writer
/// that reports SQLITE_READONLY on its first write.
static int cdx_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    cdx_file *wrapper = (cdx_file *)file;
    memset(wrapper, 0, sizeof *wrapper);
    wrapper->real = (sqlite3_file *)&wrapper[1];
    int opened_flags = 0;
    first_open_errno = 0;
    int code = parent_vfs->xOpen(parent_vfs, name, wrapper->real, flags, &opened_flags);
    int cause = first_open_errno;
    first_open_errno = 0;
    if (out_flags != NULL) {
        *out_flags = opened_flags;
    }
    if (code == SQLITE_OK && (flags & SQLITE_OPEN_READWRITE) != 0 && (opened_flags & SQLITE_OPEN_READONLY) != 0
        && cause != 0 && !is_permission(cause)) {
        if (wrapper->real->pMethods != NULL) {
            // The close's own result does not matter: the open is reported failed either way.
            (void)wrapper->real->pMethods->xClose(wrapper->real);
        }
        wrapper->real->pMethods = NULL;
        wrapper->base.pMethods = NULL;
        errno = cause;
        return SQLITE_CANTOPEN;
    }
    if (code != SQLITE_OK && cause != 0) {
        // SQLite reads the cause with xGetLastError, the parent's, which returns `errno`.
        errno = cause;
    }
    const sqlite3_io_methods *real_methods = wrapper->real->pMethods;
    if (real_methods == NULL) {
        wrapper->base.pMethods = NULL;
    } else {
        int version = real_methods->iVersion;
        // A file without shared memory (a version 2 or 3 table whose xShmMap is NULL, as a
        // no-lock file's) gets the version 1 table: SQLite then never asks it for any.
        if (version >= 2 && real_methods->xShmMap == NULL) {
            version = 1;
        }
        wrapper->base.pMethods = &methods_by_version[version < 1 ? 1 : version > 3 ? 3 : version];
    }
    return code;
}

static void register_vfs(void) {
    parent_vfs = sqlite3_vfs_find(NULL);
    if (parent_vfs == NULL) {
        return;
    }
    cdx_vfs = *parent_vfs;
    cdx_vfs.szOsFile = (int)sizeof(cdx_file) + parent_vfs->szOsFile;
    cdx_vfs.pNext = NULL;
    cdx_vfs.zName = "cipherdex-unix";
    cdx_vfs.xOpen = cdx_open;
    if (parent_vfs->iVersion >= 3 && parent_vfs->xGetSystemCall != NULL && parent_vfs->xSetSystemCall != NULL) {
        sqlite3_syscall_ptr open_call = parent_vfs->xGetSystemCall(parent_vfs, "open");
        if (open_call != NULL) {
            __atomic_store_n(&parent_open_call, (cdx_open_call)open_call, __ATOMIC_RELEASE);
            if (parent_vfs->xSetSystemCall(parent_vfs, "open", (sqlite3_syscall_ptr)cdx_sys_open) != SQLITE_OK) {
                __atomic_store_n(&parent_open_call, NULL, __ATOMIC_RELEASE);
            }
        }
    }
    if (sqlite3_vfs_register(&cdx_vfs, 0) == SQLITE_OK) {
        registered_name = cdx_vfs.zName;
    }
}

const char *cipherdex_vfs_name(void) {
    pthread_once(&registration, register_vfs);
    return registered_name;
}

void cipherdex_vfs_reset_read_failure(void) { first_read_errno = 0; }

int cipherdex_vfs_read_failure(void) { return first_read_errno; }
