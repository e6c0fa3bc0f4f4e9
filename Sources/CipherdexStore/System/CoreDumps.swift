internal import CSystemShims

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a process's memory out of core files: decrypted pages, documents, page text and SQLCipher's
/// key schedule are ordinary memory (only `SecureBytes` is excluded from dumps by libsodium).
///
/// Process-wide, so the library never does it by itself: the `cipherdex` command does at start,
/// as `ssh-agent` does, and an application may (SECURITY.md, "What is not protected").
package enum CoreDumps {
    /// Makes this process not dumpable (Linux `PR_SET_DUMPABLE` 0): no core file is written when
    /// it crashes, and processes of the same user without `CAP_SYS_PTRACE` cannot attach to it
    /// or read its memory. A program it executes starts dumpable again: the PDF helper makes
    /// itself not dumpable before it reads a request (`CExtractHelperEntry`,
    /// `PDFExtractionHelper.run`). Throws `SystemError` when the kernel refuses; elsewhere does nothing.
    package static func disable() throws {
        try FileDescriptor.retrying(operation: "prctl(PR_SET_DUMPABLE)", path: "") { cdx_set_dumpable(0) }
    }

    /// Replaces the Swift runtime's crash report with one line (`cdx_quiet_crash_reports`): the
    /// backtrace printed the registers and the bytes around the addresses they hold, key bytes
    /// among them (environment audit 28). Process-wide, like `disable()`: the `cipherdex`
    /// command does it at start; an application may run with `SWIFT_BACKTRACE=enable=no`.
    package static func quietCrashReports() throws {
        try FileDescriptor.retrying(operation: "sigaction", path: "") { cdx_quiet_crash_reports() }
    }

    /// Makes this process dumpable again (tests only: a test that disabled dumps restores it).
    package static func enableForTesting() {
        _ = cdx_set_dumpable(1)
    }

    /// Whether this process may dump core (Linux `PR_GET_DUMPABLE`), for tests; true elsewhere.
    package static var areEnabled: Bool {
        #if os(Linux)
            return cdx_core_dumps_enabled() != 0
        #else
            return true
        #endif
    }
}
