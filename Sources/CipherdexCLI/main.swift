import Cipherdex
import Foundation

/// Entry point: `cipherdex COMMAND [ARGUMENTS]`. Arguments are read from the raw argv bytes, so
/// one that is not valid UTF-8 is refused (exit 64) rather than repaired into U+FFFD.
///
/// First the process is made not dumpable: a crash writes no core file holding keys, decrypted
/// pages or documents (and same-user processes cannot read its memory). Should the kernel refuse
/// (it does not on Linux), the command runs as before. A crash prints one line, not the Swift
/// runtime's backtrace, whose register dump showed key bytes (`CoreDumps.quietCrashReports`).
///
/// SIGXFSZ is ignored: under a file-size limit (`ulimit -f`) a write past it then fails with
/// `EFBIG`, which every write path reports as `fileTooLarge` (exit 18) and cleans up after (an
/// export removes what it wrote), instead of the signal killing the process mid-write.
///
/// A standard stream the command was started without (`cipherdex … >&-`) gets `/dev/null`
/// (read-only: what would be printed there fails as not written): a store file opened on that
/// descriptor would otherwise receive the command's output, documents and keys, in plaintext.
///
/// Then Dispatch makes its descriptors, and the soft open-file limit is raised
/// (`DescriptorHeadroom`): out of descriptors, a command fails with an error, never a trap.
StandardDescriptors.occupyClosed()
DescriptorHeadroom.prepare()
try? CoreDumps.disable()
try? CoreDumps.quietCrashReports()
signal(SIGXFSZ, SIG_IGN)
do {
    exit(
        CipherdexCommandLine.run(try ProcessArguments.decoded(count: CommandLine.argc, values: CommandLine.unsafeArgv)))
} catch {
    exit(CipherdexCommandLine.report(error))
}
