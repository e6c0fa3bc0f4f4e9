import Foundation

/// Misuse of the search library (malformed queries are `SearchQueryError`).
public enum SearchError: Error, LocalizedError, Equatable, Sendable {
    /// A UID must be 1–1024 characters without control characters; the message says which
    /// rule this one breaks (`problem(withUID:)`).
    case invalidUID(String)
    /// No extractor handles this file extension (empty: the file name has none).
    case unsupportedFileType(String)
    /// The UID is not in the index.
    case documentNotFound(uid: String)
    /// A folder to sync does not exist or is not a folder.
    case notAFolder(String)
    /// A file to add could not be read.
    case unreadable(path: String, reason: String)
    /// The index could not be written to the store for these documents (disk full, I/O
    /// error): they are not searchable in their new version. Adding them again once the cause
    /// is gone retries; everything written before stays intact.
    case indexWriteFailed(uids: [String], reason: String)
    /// PDFs are to be parsed in isolated helper processes (the default) and no helper can run
    /// (this executable cannot re-run itself as one and no `cipherdex-extract` was found, or
    /// `CIPHERDEX_EXTRACT_HELPER` names no executable): nothing was queued. The reason says what
    /// to call, build or set.
    case extractionHelperMissing(reason: String)
    /// OCR is enabled in a language whose Tesseract data is not installed: install `package`
    /// (Debian `tesseract-ocr-LANG`, or point `TESSDATA_PREFIX` at the data). Nothing was queued.
    case ocrLanguageMissing(language: String, package: String)
    /// An OCR language code is not one (letters, digits and `_`, as `eng` or `chi_sim`).
    case invalidOCRLanguage(String)
    /// A setting of `SearchOptions` (`name`, such as `maximumResults`) is out of its range;
    /// `reason` gives the range and the value. Nothing was searched.
    case invalidOption(name: String, reason: String)
    /// `operation` (`waitUntilIndexed()`) was called on one of the search library's own threads
    /// (inside a `TextExtractor` or the `passwordProvider`): it waits for the work that thread
    /// is part of, so it would never end. Nothing was waited for; call it from elsewhere.
    case calledFromLibraryThread(operation: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .invalidUID: return "invalidUID"
        case .unsupportedFileType: return "unsupportedFileType"
        case .documentNotFound: return "documentNotFound"
        case .notAFolder: return "notAFolder"
        case .unreadable: return "unreadable"
        case .indexWriteFailed: return "indexWriteFailed"
        case .extractionHelperMissing: return "extractionHelperMissing"
        case .ocrLanguageMissing: return "ocrLanguageMissing"
        case .invalidOCRLanguage: return "invalidOCRLanguage"
        case .invalidOption: return "invalidOption"
        case .calledFromLibraryThread: return "calledFromLibraryThread"
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .invalidUID(let uid):
            // At most 80 characters of it, control characters escaped: the message stays one line.
            let echo = String(uid.prefix(80)).debugDescription + (uid.count > 80 ? "…" : "")
            return "\(echo) is not a valid document UID: "
                + (Self.problem(withUID: uid)
                    ?? "a UID is 1–\(Self.maximumUIDLength) characters without control characters")
        case .unsupportedFileType(let ext):
            return ext.isEmpty
                ? "the file name has no extension, and the text extractor is chosen by it (such as .pdf or .txt)"
                : "no text extractor for '.\(ext)' files"
        case .documentNotFound(let uid): return "no document '\(uid)' in the search index"
        case .notAFolder(let path): return "\(path) is not a folder"
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .extractionHelperMissing(let reason): return reason
        case .ocrLanguageMissing(let language, let package):
            return "no OCR language data for '\(language)': install the package \(package) "
                + "(or set TESSDATA_PREFIX to a folder holding \(language).traineddata)"
        case .invalidOCRLanguage(let language):
            return "'\(language.prefix(80))' is not an OCR language code (such as eng, fra or chi_sim)"
        case .invalidOption(let name, let reason): return "invalid SearchOptions.\(name): \(reason)"
        case .calledFromLibraryThread(let operation):
            return "\(operation) cannot run on one of the search library's own threads (inside a text extractor or "
                + "the password provider): it would wait for the indexing that thread is part of; call it elsewhere"
        case .indexWriteFailed(let uids, let reason):
            let named =
                uids.prefix(3).map { "'\($0.prefix(80))'" }.joined(separator: ", ") + (uids.count > 3 ? ", …" : "")
            return "the search index could not be written for \(uids.count) document(s) (\(named)): \(reason)"
        }
    }

    /// The most characters a document UID may have.
    static let maximumUIDLength = 1024

    /// Why `uid` is not a valid document UID (it is empty, longer than `maximumUIDLength`
    /// characters, or holds a control character, named by its code point); nil when it is one.
    static func problem(withUID uid: String) -> String? {
        if uid.isEmpty { return "it is empty" }
        if uid.count > maximumUIDLength {
            return "it is \(uid.count) characters long, more than the limit of \(maximumUIDLength)"
        }
        if let control = uid.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return "it contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)"
        }
        return nil
    }
}
