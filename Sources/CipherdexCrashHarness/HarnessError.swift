import Foundation

/// Why the harness could not run (as opposed to a failed trial, which is a finding).
enum HarnessError: Error, LocalizedError {
    /// Bad command-line arguments.
    case usage(String)
    /// A child process could not be started or set up.
    case spawn(String)
    /// The fixture or template could not be prepared.
    case setup(String)

    /// Whether this is a usage error (exit status 64).
    var isUsage: Bool {
        if case .usage = self { return true }
        return false
    }

    var errorDescription: String? {
        switch self {
        case .usage(let message): return "usage: \(message)"
        case .spawn(let message): return "cannot start the child: \(message)"
        case .setup(let message): return "cannot prepare the trial: \(message)"
        }
    }
}
