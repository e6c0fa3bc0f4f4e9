import Foundation

/// The parent's command line: `run [--operations a,b|all] [--trials N] [--seed S]
/// [--mode random|fsync|write|files|both|all] [--keep-failures DIR] [--work DIR]`.
struct HarnessOptions {
    /// How a trial's kill instant is chosen.
    enum KillMode: String, CaseIterable {
        /// SIGKILL after a random delay, uniform over the child's calibrated run time.
        case random
        /// SIGKILL (through strace) at the Nth fsync/fdatasync, N swept over the calibrated count.
        case fsync
        /// SIGKILL (through strace) at the Nth write/pwrite, N swept over the calibrated count.
        case write
        /// SIGKILL (through strace) at the Nth fsync, rename, unlink or mkdir: every step of the
        /// file protocols (create, delete, metadata replacement, attachment publication).
        case files

        /// The system calls strace counts and interrupts.
        var syscalls: String? {
            switch self {
            case .random: return nil
            case .fsync: return "fsync,fdatasync"
            case .write: return "write,pwrite64,pwritev,pwritev2"
            case .files: return "fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat"
            }
        }
    }

    /// Operations to run.
    var operations = CrashOperation.allCases
    /// Trials per operation, shared out among the modes.
    var trials = 200
    /// Seed of the random kill instants.
    var seed: UInt64 = 1
    /// Kill modes, used in turn.
    var modes: [KillMode] = [.random, .fsync]
    /// Where failed trials' folders are kept (nil: a `failures` folder in the work folder).
    var keepFailures: String?
    /// The work folder (nil: a fresh temporary one, removed at the end when nothing failed).
    var work: String?

    /// Parses the arguments after `run`.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw HarnessError.usage("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--operations": operations = try CrashOperation.parseList(try value(flag))
            case "--trials":
                guard let count = Int(try value(flag)), count > 0 else {
                    throw HarnessError.usage("--trials needs N > 0")
                }
                trials = count
            case "--seed":
                guard let seed = UInt64(try value(flag)) else { throw HarnessError.usage("--seed needs a number") }
                self.seed = seed
            case "--mode":
                let name = try value(flag)
                switch name {
                case "both": modes = [.random, .fsync]
                case "all": modes = KillMode.allCases
                default:
                    guard let mode = KillMode(rawValue: name) else {
                        throw HarnessError.usage("--mode is random, fsync, write, files, both or all")
                    }
                    modes = [mode]
                }
            case "--keep-failures": keepFailures = try value(flag)
            case "--work": work = try value(flag)
            default: throw HarnessError.usage("unknown argument \(flag)")
            }
        }
    }

    /// The usage text.
    static let usage = """
        usage: cipherdex-crash run [--operations NAME,…|all] [--trials N] [--seed S]
                                   [--mode random|fsync|write|files|both|all] [--keep-failures DIR] [--work DIR]
               cipherdex-crash child OPERATION TRIAL_DIR FIXTURES_DIR
        operations: \(CrashOperation.allCases.map(\.rawValue).joined(separator: ","))
        """
}
