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
const char *cipherdex_vfs_name(void);

#endif
