import CipherdexExtraction
import Foundation

/// One document's OCR in its current indexing: its bytes, read and checked once for all its
/// pages (each page read, decrypted and hashed the whole file again: OCR audit 9), and what it
/// has spent against `OCRSettings`' `documentSeconds` and `pagesAtLimitPerDocument`. Once either
/// is reached, its pages not yet recognised fail with `budgetExceeded` without being tried (a
/// hostile PDF whose every page costs the per-page limit otherwise kept the library, and the
/// CLI's store lock, for hours).
struct OCRDocumentRun: Sendable {
    /// The prefix of the failure of a page not tried (one of the failures tried again).
    static let failureName = "budgetExceeded"

    /// Which run this is (its pages carry it).
    let id = UUID()

    /// The document's bytes once a page has read them, with the content hash they were checked
    /// against; dropped with the run when its last page is done.
    var content: (hash: [UInt8], bytes: [UInt8])?
    /// Seconds the document's page requests took, added up.
    private(set) var seconds: Double = 0
    /// Pages that reached the per-page limits.
    private(set) var pagesAtLimit = 0

    /// Records one page's request: how long it took and how it failed, if it did.
    mutating func record(seconds: Double, failure: (any Error)?) {
        self.seconds += max(seconds, 0)
        switch failure as? ExtractionError {
        case .timedOut, .memoryLimitExceeded: pagesAtLimit += 1
        default: break
        }
    }

    /// Why a page of the document is not tried, as its recorded failure (`budgetExceeded: …`), or
    /// nil while the budget lasts.
    func exhaustion(of settings: OCRSettings) -> String? {
        if pagesAtLimit >= settings.pagesAtLimitPerDocument {
            return "\(Self.failureName): not recognised, since \(pagesAtLimit) pages of this document reached the "
                + "per-page limits (\(Self.format(settings.pageWallClockSeconds)) s or the memory limit) in this "
                + "indexing; the next indexing of the document tries again"
        }
        if seconds >= settings.documentSeconds {
            return "\(Self.failureName): not recognised, since this document's OCR took \(Self.format(seconds)) s "
                + "in this indexing, its budget being \(Self.format(settings.documentSeconds)) s "
                + "(OCRSettings.documentSeconds, --ocr-document-seconds); the next indexing of the document goes on "
                + "with the pages not recognised"
        }
        return nil
    }

    /// Seconds as a reader writes them: whole when whole, else to a tenth (0.001 s shows as 0.001).
    static func format(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), seconds < 1e15 { return String(Int(seconds)) }
        if seconds >= 0.1 { return String((seconds * 10).rounded() / 10) }
        return String(seconds)
    }
}
