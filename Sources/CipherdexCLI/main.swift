import Foundation

/// Entry point: `cipherdex COMMAND [ARGUMENTS]`.
exit(CipherdexCommandLine.run(Array(CommandLine.arguments.dropFirst())))
