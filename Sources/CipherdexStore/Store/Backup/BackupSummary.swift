/// What a backup copied.
public struct BackupSummary: Sendable, Equatable {
    /// Bytes of the database copied (every page, as of one commit).
    public var databaseBytes: UInt64
    /// Attachments the snapshot references (all are in the backup).
    public var attachments: Int
    /// Attachments copied because the destination did not hold them.
    public var attachmentsCopied: Int
    /// Attachments kept from the destination's previous backup (hard-linked, not copied).
    public var attachmentsReused: Int
    /// Bytes of attachment files copied.
    public var attachmentBytesCopied: UInt64
    /// Whether the destination held an earlier backup of this store that was reused.
    public var incremental: Bool
}
