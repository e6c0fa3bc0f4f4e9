#if canImport(Glibc)
    import Glibc
#endif

/// Keeps files of a store off descriptors 0, 1 and 2. A process started with one of them closed
/// (`cmd <&- >&-`) gets that number back from its next `open`: a store file opened there (the
/// lock file, held open) would receive everything the process prints to standard output, in
/// plaintext. SQLite's own opens do the same (`robust_open`).
package enum StandardDescriptors {
    /// Puts `/dev/null`, opened read-only, on each of descriptors 0, 1 and 2 that is closed: a
    /// read from it finds nothing and a write to it fails (`EBADF`), so output meant for a closed
    /// standard output is reported as not written, never sent elsewhere. For a program's start.
    package static func occupyClosed() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            occupy(descriptor)
        }
    }

    /// `descriptor` when it is above 2; otherwise a duplicate of it above 2 (close-on-exec), with
    /// `/dev/null` put in its place as `occupyClosed()` does, so that the file never receives what
    /// is written to a standard stream. Returns -1 (with `errno`) when no duplicate can be made;
    /// `descriptor` is then closed.
    package static func movedAbove(_ descriptor: Int32) -> Int32 {
        guard (0...2).contains(descriptor) else { return descriptor }
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        let code = errno
        occupy(descriptor)
        if moved < 0 { errno = code }
        return moved
    }

    /// Puts `/dev/null`, read-only, on `descriptor` (closing what was there).
    private static func occupy(_ descriptor: Int32) {
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard null >= 0 else {
            _ = close(descriptor)
            return
        }
        if null != descriptor {
            _ = dup2(null, descriptor)
            _ = close(null)
        } else {
            // Landed there itself: the standard stream must survive an `exec`.
            _ = fcntl(descriptor, F_SETFD, 0)
        }
    }
}
