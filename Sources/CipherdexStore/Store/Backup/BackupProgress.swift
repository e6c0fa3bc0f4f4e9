/// How far a backup has got, for a progress display.
public struct BackupProgress: Sendable, Equatable {
    /// What is being done.
    public enum Phase: String, Sendable {
        /// The database pages are being copied.
        case database
        /// Attachment files the destination lacks are being copied.
        case attachments
        /// The copy is being checked (database integrity, every new attachment authenticated).
        case verifying
        /// The copy is complete; the destination is switching to it.
        case switching
    }

    /// What is being done.
    public var phase: Phase
    /// Bytes copied so far (database and attachments).
    public var completedBytes: UInt64
    /// Bytes to copy in all (the database and the attachments the destination lacks).
    public var totalBytes: UInt64
}
