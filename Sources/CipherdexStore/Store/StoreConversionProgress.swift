/// How far a re-encryption or conversion has got, for a progress display.
public struct StoreConversionProgress: Sendable, Equatable {
    /// What is being written.
    public enum Phase: String, Sendable {
        /// The database is being copied into the new generation.
        case database
        /// Attachments are being decrypted and sealed again.
        case attachments
        /// The new generation is complete; the metadata is switching to it.
        case switching
    }

    /// What is being written.
    public var phase: Phase
    /// Bytes written so far (database and attachments).
    public var completedBytes: UInt64
    /// Bytes to write in all (an estimate: the database's size before compaction).
    public var totalBytes: UInt64
}
