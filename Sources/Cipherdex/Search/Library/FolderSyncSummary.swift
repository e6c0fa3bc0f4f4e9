import Foundation

/// What a folder sync found (the indexing itself runs in the background).
public struct FolderSyncSummary: Sendable, Equatable {
    /// An entry of the folder that was left out because it cannot be indexed.
    public struct SkippedEntry: Sendable, Equatable {
        /// Its path relative to the folder, bytes that are not valid UTF-8 shown as `\xHH`.
        public var path: String
        /// Why: the name is not valid UTF-8, or the folder could not be read.
        public var reason: String

        /// Creates an entry.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// New files, queued.
    public var added: [String] = []
    /// Files whose size or modification time changed, queued (re-indexed only if the content
    /// changed too).
    public var changed: [String] = []
    /// Files that disappeared, removed from the index.
    public var removed: [String] = []
    /// Files with the same size and modification time, left alone.
    public var unchanged: [String] = []
    /// Files unchanged since a sync in which they failed or were locked, queued again (what made
    /// them fail — a missing helper, a password, a limit — may be gone), and PDFs, with OCR on,
    /// whose scanned pages are not all recognised (a time-out, the document's OCR budget spent).
    public var retried: [String] = []
    /// Files whose UID (relative path) already belongs to another document — one added with
    /// `add`, or from another synced folder — left alone rather than replacing it.
    public var conflicts: [String] = []
    /// Entries left out, by path: files and folders whose names are not valid UTF-8 (a UID is
    /// text), and folders that could not be read (their documents indexed before are kept, not
    /// removed). A sync with skipped entries is incomplete.
    public var skipped: [SkippedEntry] = []
}
