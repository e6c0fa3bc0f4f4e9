import Foundation

/// One page waiting for OCR: which document (by UID and content), where its bytes are, which
/// page and in which languages.
struct OCRPageJob: Sendable {
    /// Where the document's bytes are read again.
    enum Source: Sendable {
        /// The copy the index stored.
        case attachment(id: String)
        /// The file of a synced folder (checked against `contentHash` after reading).
        case file(path: String)
    }

    let uid: String
    let contentHash: [UInt8]
    let source: Source
    let pageIndex: Int
    /// The settings of the indexing that queued it (its languages included).
    let settings: OCRSettings
    /// The document's OCR run it belongs to (`OCRDocumentRun.id`): a page of an earlier run that
    /// ends after the document was queued again is not charged to the new run.
    let run: UUID
    /// Whether the document opened only with a password: its page requests carry the
    /// `passwordProvider`'s, the others none (an unprotected PDF's helper never holds it).
    var needsPassword = false
}
