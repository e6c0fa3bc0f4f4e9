#ifndef CIPHERDEX_CSQLITEVFS_H
#define CIPHERDEX_CSQLITEVFS_H

/// The name of Cipherdex's SQLite VFS, registered on the first call (not as the default VFS), or
/// NULL when it could not be registered (SQLite's own then serves). It is the platform's default
/// VFS ("unix") with one change: each region of the shared-memory wal-index (the `-shm` file,
/// mapped with mmap) is made to hold disk blocks (madvise MADV_POPULATE_WRITE) before SQLite
/// touches it. SQLite extends the file by writing one byte per 4 KiB page; on a file system of
/// smaller blocks (ext4 of 1 KiB blocks) the rest of each page stays a hole, and when the disk is
/// full a write through the mapping to a hole raises SIGBUS, killing the process. Here the map
/// fails instead, with SQLITE_FULL.
///
/// Three more changes, about errors. A failed open reports the `errno` of its first attempt
/// (`sqlite3_system_errno`): the default VFS retries a read-write open read-only, and the retry's
/// `errno` (ENOENT for a `-wal` that is not there) replaced the real cause (EACCES, ENOSPC, EIO).
/// A read-write open the default VFS could do only read-only, for another cause than permissions
/// (EACCES, EPERM, EROFS), fails with SQLITE_CANTOPEN and that cause. Failed reads are recorded
/// (`cipherdex_vfs_read_failure`). A sync interrupted by a signal (EINTR) is retried: the default
/// VFS reports it as a failed sync (`SQLITE_IOERR_FSYNC`), though nothing failed.
const char *cipherdex_vfs_name(void);

/// Forgets the failed read `cipherdex_vfs_read_failure` reports, for this thread.
void cipherdex_vfs_reset_read_failure(void);

/// The `errno` of the first read of a database file (through this VFS) on this thread that failed
/// since `cipherdex_vfs_reset_read_failure`, not counting short reads; 0 when none. SQLCipher
/// takes a failed read of a database's salt for a new database, and so reports a failing disk as
/// a database that does not decrypt: this tells the two apart.
int cipherdex_vfs_read_failure(void);

#endif
