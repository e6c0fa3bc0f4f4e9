import Cipherdex
import Foundation

/// Errors of the command-line layer itself.
enum CLIError: Error, LocalizedError {
    /// Bad arguments; exit status 64.
    case usage(String)
    /// A problem that is not the library's, with a code name for the error line.
    case failed(code: String, message: String)
    /// The argument at `position` (1 for the command name) is not valid UTF-8; `option` is the
    /// option it follows, when the argument before it is one. Exit status 64. The message never
    /// repeats the argument's bytes.
    case invalidArgumentEncoding(position: Int, option: String?)
    /// The command's change is committed (`done` says what is in effect), but its report could
    /// not be written to standard output (`reason`: a full disk, an input/output error, a closed
    /// pipe). Exit status 21.
    case outputFailed(done: String, reason: String)
    /// A library error worded for the command that met it (`message`), with the error's own code
    /// and exit status (a restore's wrong key is the backup's, not the store's it replaces).
    case reworded(Error, message: String)

    var errorDescription: String? {
        switch self {
        case .usage(let message): return message
        case .failed(_, let message): return message
        case .invalidArgumentEncoding(let position, let option):
            let location = option.map { " (after \($0))" } ?? ""
            return "argument \(position)\(location) is not valid UTF-8"
        case .outputFailed(let done, let reason):
            return "\(done), but its report could not be written to standard output (\(reason)): "
                + "the change is in effect; do not run the command again"
        case .reworded(_, let message): return message
        }
    }
}

/// Exit statuses, documented in the README.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let keyRequired: Int32 = 10
    static let keyUnexpected: Int32 = 11
    static let keyInvalid: Int32 = 12
    static let unsupportedScheme: Int32 = 13
    static let metadataCorrupt: Int32 = 14
    static let storeCorrupted: Int32 = 15
    static let storeLocked: Int32 = 16
    static let permissionDenied: Int32 = 17
    static let diskFull: Int32 = 18
    static let ioError: Int32 = 19
    static let mountPoint: Int32 = 20
    static let outputFailed: Int32 = 21
    static let resourcesExhausted: Int32 = 22
    static let usage: Int32 = 64

    /// The error line's code and the exit status for any error.
    static func describe(_ error: Error) -> (code: String, status: Int32) {
        switch error {
        case let error as EncryptionError:
            let status: Int32
            switch error {
            case .keyRequired: status = keyRequired
            case .keyUnexpected: status = keyUnexpected
            case .keyInvalid: status = keyInvalid
            case .unsupportedScheme: status = unsupportedScheme
            case .metadataCorrupt: status = metadataCorrupt
            }
            return (error.name, status)
        case let error as StoreError:
            switch error {
            case .storeCorrupted: return (error.name, storeCorrupted)
            case .storeLocked: return (error.name, storeLocked)
            case .permissionDenied: return (error.name, permissionDenied)
            case .diskFull, .fileTooLarge: return (error.name, diskFull)
            case .ioError: return (error.name, ioError)
            case .mountPoint: return (error.name, mountPoint)
            case .resourcesExhausted: return (error.name, resourcesExhausted)
            // The change is made; what kept it from being durable decides the code and status.
            case .notDurable(_, _, let cause), .deletionIncomplete(_, let cause): return describe(cause)
            default: return (error.name, failure)
            }
        case let error as CLIError:
            switch error {
            case .usage, .invalidArgumentEncoding: return ("usage", usage)
            case .failed(let code, _): return (code, failure)
            case .outputFailed: return ("outputFailed", outputFailed)
            case .reworded(let underlying, _): return describe(underlying)
            }
        case let error as KeyError:
            switch error {
            case .invalidLength: return ("invalidLength", failure)
            case .emptyPassphrase: return ("emptyPassphrase", failure)
            case .invalidHex: return ("invalidHex", failure)
            case .unreadable: return ("keyUnreadable", failure)
            case .unsupportedCost: return ("unsupportedCost", failure)
            case .recoveryKeyMalformed: return ("recoveryKeyMalformed", failure)
            case .recoveryKeyGroupMistyped: return ("recoveryKeyGroupMistyped", failure)
            case .noSuchKeyslot: return ("noSuchKeyslot", failure)
            case .lastKeyslot: return ("lastKeyslot", failure)
            case .tooManyKeyslots: return ("tooManyKeyslots", failure)
            case .keyAlreadyInSlot: return ("keyAlreadyInSlot", failure)
            case .invalidLabel: return ("invalidLabel", failure)
            }
        case let error as BackupError:
            if case .insufficientSpace = error { return (error.code, diskFull) }
            return (error.code, failure)
        case let error as StoreConversionError:
            if case .insufficientSpace = error { return (error.code, diskFull) }
            return (error.code, failure)
        case let error as AttachmentError:
            // A read or write of an attachment's file that the system refused: its errno says
            // whether that is a permission, a full disk, a failing device or too many open files
            // (or too little memory).
            if case .io(_, _, let code) = error {
                switch code {
                case EIO: return (error.code, ioError)
                case EACCES, EPERM, EROFS: return (error.code, permissionDenied)
                case ENOSPC, EDQUOT, EFBIG: return (error.code, diskFull)
                case EMFILE, ENFILE, ENOMEM: return (error.code, resourcesExhausted)
                default: break
                }
            }
            return (error.code, failure)
        case let error as CodedError:
            return (error.code, failure)
        default:
            return ("error", failure)
        }
    }
}

/// Library errors from later features expose their case name through this.
protocol CodedError: Error {
    /// The case's name.
    var code: String { get }
}
