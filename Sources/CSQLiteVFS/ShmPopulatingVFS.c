// Cipherdex's VFS: the default one, with each shared-memory region backed by disk blocks before
// SQLite writes to it (see CSQLiteVFS.h).
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

#include <errno.h>
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

static sqlite3_file *real_file(sqlite3_file *file) { return ((cdx_file *)file)->real; }

static int cdx_close(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xClose(real);
}

static int cdx_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xRead(real, buffer, amount, offset);
}

static int cdx_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xWrite(real, buffer, amount, offset);
}

static int cdx_truncate(sqlite3_file *file, sqlite3_int64 size) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xTruncate(real, size);
}

static int cdx_sync(sqlite3_file *file, int flags) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xSync(real, flags);
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

static int cdx_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    cdx_file *wrapper = (cdx_file *)file;
    memset(wrapper, 0, sizeof *wrapper);
    wrapper->real = (sqlite3_file *)&wrapper[1];
    int code = parent_vfs->xOpen(parent_vfs, name, wrapper->real, flags, out_flags);
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
    if (sqlite3_vfs_register(&cdx_vfs, 0) == SQLITE_OK) {
        registered_name = cdx_vfs.zName;
    }
}

const char *cipherdex_vfs_name(void) {
    pthread_once(&registration, register_vfs);
    return registered_name;
}
