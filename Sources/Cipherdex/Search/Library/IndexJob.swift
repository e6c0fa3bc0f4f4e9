import Foundation

/// One document waiting to be (re)indexed.
struct IndexJob: Sendable {
    /// Where its bytes come from.
    enum Source: Sendable {
        /// A file; with `storeCopy`, it is also stored as an encrypted attachment.
        case file(path: String, storeCopy: Bool)
        /// An attachment already in the store.
        case attachment(id: String)
        /// Bytes handed over by the caller (stored as an attachment).
        case data(Data)
    }

    let uid: String
    let source: Source
    /// Lower-cased, without the dot.
    let fileExtension: String
    /// For documents of a synced folder: the folder, and the file's size and modification time.
    var sourceRoot: String?
    var sourceSize: Int64?
    var sourceModified: Double?
    /// Re-index even when the content did not change (tokenizer change, new password).
    var force = false
    /// Whether writing it removes the documents indexed under its UID in another Unicode
    /// normalization (`add`; `SearchIndexWriter.canonicalTwins`), in the same transaction.
    var replacesCanonicalTwins = false
}

/// What a worker hands to the writer.
struct IndexOutcome {
    enum Result {
        case indexed(ExtractedDocument)
        case failed(String)
        case locked
        /// The content is what is indexed already; only the folder facts are refreshed.
        case unchanged
        /// The store could not take the document's copy (disk full): nothing is written, the
        /// library remembers the failure.
        case notStored(String)
    }

    let job: IndexJob
    let result: Result
    var attachmentID: String?
    let contentHash: [UInt8]
    /// The document's copy, sealed into staging but not recorded: the writer records it in the
    /// same transaction as the index entry (`attachmentID` is then set), so a crash in between
    /// leaves no attachment that nothing holds.
    var staged: AttachmentStorage.Staged? = nil
    /// Whether the copy's content was stored already (`attachmentID` is an existing
    /// attachment's): the index owns it only when another of its entries owned it, not when it
    /// is the application's (`SearchIndexWriter.write`).
    var sharesStoredCopy = false
    /// The OCR languages (`eng+fra`) when the document was extracted with OCR candidates
    /// flagged, nil when OCR is off for it.
    var ocrLanguages: String? = nil
    /// The OCR settings of that extraction (for the page jobs it queues).
    var ocrSettings: OCRSettings? = nil
    /// Whether the document opened only with the `passwordProvider`'s password (its OCR pages
    /// are sent it; no other request is).
    var needsPassword = false
}
