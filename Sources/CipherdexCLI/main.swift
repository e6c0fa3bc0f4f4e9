import Foundation

/// Entry point: `cipherdex COMMAND [ARGUMENTS]`. Arguments are read from the raw argv bytes, so
/// one that is not valid UTF-8 is refused (exit 64) rather than repaired into U+FFFD.
do {
    exit(
        CipherdexCommandLine.run(try ProcessArguments.decoded(count: CommandLine.argc, values: CommandLine.unsafeArgv)))
} catch {
    exit(CipherdexCommandLine.report(error))
}
