import Cipherdex
import Foundation

/// Entry point: `cipherdex COMMAND [ARGUMENTS]`. Arguments are read from the raw argv bytes, so
/// one that is not valid UTF-8 is refused (exit 64) rather than repaired into U+FFFD.
///
/// First the process is made not dumpable: a crash writes no core file holding keys, decrypted
/// pages or documents (and same-user processes cannot read its memory). Should the kernel refuse
/// (it does not on Linux), the command runs as before.
try? CoreDumps.disable()
do {
    exit(
        CipherdexCommandLine.run(try ProcessArguments.decoded(count: CommandLine.argc, values: CommandLine.unsafeArgv)))
} catch {
    exit(CipherdexCommandLine.report(error))
}
