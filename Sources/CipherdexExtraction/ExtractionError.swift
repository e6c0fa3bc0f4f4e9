import Foundation

/// Why a document's text could not be extracted. Every failure of every `TextExtractor` is one of
/// these cases, so callers can record the outcome per document and move on.
public enum ExtractionError: Error, LocalizedError, Equatable, Codable, Sendable {
    /// The document is encrypted and needs a password, or the password given was wrong.
    case locked
    /// The bytes are not a readable document of the expected format.
    case damaged(reason: String)
    /// Extraction ran longer than the wall-clock or CPU limit, in seconds.
    case timedOut(seconds: Double)
    /// Extraction needed more memory (address space) than the limit, in bytes.
    case memoryLimitExceeded(bytes: Int)
    /// The isolated helper process died without answering: the signal that ended it, or its exit
    /// status when it exited on its own.
    case helperCrashed(signal: Int32?, exitStatus: Int32?)
    /// The isolated helper executable could not be found or started.
    case helperUnavailable(reason: String)
    /// The format is not one this extractor reads (the file extension or the content tells).
    case unsupportedFormat(String)
    /// A library PDF extraction loads when first used (poppler-glib, poppler-cpp, GLib, GIO or
    /// cairo) is missing or lacks a function: `reason` names the library or the function.
    case libraryUnavailable(reason: String)
    /// A page to recognise (OCR) holds an image too large to draw: wider or taller than 32767
    /// pixels (cairo's largest image), or needing more bytes to draw (`neededBytes`: 4 a pixel,
    /// as cairo holds it) than the extraction helper's memory limit leaves (`availableBytes`).
    /// Found from the image's dictionary, before anything is rendered or decoded. `page` counts
    /// from 1.
    case imageTooLarge(page: Int, width: Int, height: Int, neededBytes: Int, availableBytes: Int)

    /// A stable short name for the case, for logs, counters and UI.
    public var name: String {
        switch self {
        case .locked: return "locked"
        case .damaged: return "damaged"
        case .timedOut: return "timedOut"
        case .memoryLimitExceeded: return "memoryLimitExceeded"
        case .helperCrashed: return "helperCrashed"
        case .helperUnavailable: return "helperUnavailable"
        case .unsupportedFormat: return "unsupportedFormat"
        case .libraryUnavailable: return "libraryUnavailable"
        case .imageTooLarge: return "imageTooLarge"
        }
    }

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .locked:
            return "the document is encrypted: a password is needed, or the one given is wrong"
        case .damaged(let reason):
            return "the document is damaged: \(reason)"
        case .timedOut(let seconds):
            let shown = seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
            return "text extraction took longer than \(shown) s (of elapsed or processor time) and was stopped"
        case .memoryLimitExceeded(let bytes):
            return "text extraction needed more than \(bytes) bytes of memory and was stopped"
        case .helperCrashed(let signal, let status):
            if let signal { return "the extraction helper crashed (signal \(signal))" }
            return "the extraction helper failed (exit status \(status.map(String.init) ?? "unknown"))"
        case .helperUnavailable(let reason):
            return "the extraction helper is unavailable: \(reason)"
        case .unsupportedFormat(let format):
            return "unsupported document format: \(format)"
        case .libraryUnavailable(let reason):
            return "the PDF or OCR libraries could not be loaded: \(reason)"
        case .imageTooLarge(let page, let width, let height, let needed, let available):
            let size = "page \(page) holds an image of \(width) × \(height) pixels"
            if width > 32767 || height > 32767 { return "\(size), larger than the 32767 pixels a side cairo can draw" }
            return "\(size): drawing it needs \(needed) bytes, more than the \(available) the extraction helper's "
                + "memory limit leaves"
        }
    }
}
