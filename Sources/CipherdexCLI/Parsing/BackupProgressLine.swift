import Cipherdex
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The progress line of `backup` and `restore` on a terminal's standard error; silent
/// otherwise. Ctrl-C ends the process like a crash: the destination keeps its previous content.
final class BackupProgressLine: Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1
    private let last = Mutex<(percent: Int, phase: BackupProgress.Phase?)>((-1, nil))

    /// The handler passed to the library: prints when the percentage or phase changes.
    @Sendable func update(_ progress: BackupProgress) -> Bool {
        guard enabled else { return true }
        let percent =
            progress.totalBytes == 0 ? 100 : Int(min(100, progress.completedBytes * 100 / progress.totalBytes))
        let changed = last.withLock { last in
            guard percent != last.percent || progress.phase != last.phase else { return false }
            last = (percent, progress.phase)
            return true
        }
        if changed { FileHandle.standardError.write(Data("\r\u{1B}[K\(progress.phase.rawValue): \(percent)%".utf8)) }
        return true
    }

    /// Clears the line.
    func finish() {
        if enabled && last.withLock({ $0.phase }) != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

extension BackupError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension BackupSummary {
    /// One line for the CLI.
    var line: String {
        "\(attachments) attachments (\(attachmentsCopied) copied, \(attachmentsReused) kept from the previous backup), "
            + "\(databaseBytes) bytes of database"
    }
}
