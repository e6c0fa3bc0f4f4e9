import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The progress line of `reencrypt`, `encrypt` and `decrypt` on a terminal's standard error;
/// silent otherwise. Ctrl-C ends the process like a crash: before the switch the old generation
/// stays current and the next open removes the partial copy; after it the new one is complete.
final class ConversionProgressLine {
    private let enabled = isatty(STDERR_FILENO) == 1
    private var lastPercent = -1
    private var lastPhase: StoreConversionProgress.Phase?

    /// The handler passed to the library: prints when the percentage or phase changes.
    func update(_ progress: StoreConversionProgress) -> Bool {
        guard enabled else { return true }
        let percent =
            progress.totalBytes == 0 ? 100 : Int(min(100, progress.completedBytes * 100 / progress.totalBytes))
        guard percent != lastPercent || progress.phase != lastPhase else { return true }
        lastPercent = percent
        lastPhase = progress.phase
        FileHandle.standardError.write(Data("\r\u{1B}[K\(progress.phase.rawValue): \(percent)%".utf8))
        return true
    }

    /// Clears the line.
    func finish() {
        if enabled && lastPhase != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

extension StoreConversionError: CodedError {
    /// The case's name.
    var code: String {
        switch self {
        case .cancelled: return "cancelled"
        case .insufficientSpace: return "insufficientSpace"
        case .alreadyEncrypted: return "alreadyEncrypted"
        case .dataFolderElsewhere: return "dataFolderElsewhere"
        case .unrecordedAttachmentFile: return "unrecordedAttachmentFile"
        }
    }
}
