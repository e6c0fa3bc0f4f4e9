import CipherdexPDFWriter
import CipherdexTestSupport
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Helpers for the search library tests.
enum SearchLibraryTestSupport {
    /// The unsigned varints (SQLite's FTS format: 7 bits a byte, low first) in `bytes`, such as
    /// `search_text_stat`'s token total and `search_text_docsize`'s page lengths.
    static func varints(_ bytes: [UInt8]) -> [Int] {
        var values: [Int] = []
        var value = 0
        var shift = 0
        for byte in bytes {
            value |= Int(byte & 0x7F) << shift
            shift += 7
            if byte < 0x80 {
                values.append(value)
                value = 0
                shift = 0
            }
        }
        return values
    }

    /// The real-world PDF corpus beside the repository (as CI lays it out), if present.
    static var corpusDirectory: String? { PDFCorpus.directory }

    /// Writes a generated PDF with `pages` into `directory/name`.
    @discardableResult
    static func writePDF(_ pages: [String], title: String? = nil, to directory: String, name: String) -> String {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(makePDF(pages: pages, title: title)))
        return path
    }

    /// A store with a library, indexing PDFs in-process unless `isolated`.
    static func store(isolated: Bool = false) throws -> (Store, String) {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        if !isolated { store.library.configure { $0.pdfExtraction = .inProcess } }
        return (store, path)
    }

    /// The UTF-16 substring of `text` at `[start, end)`.
    static func substring(_ text: String, _ range: [Int]) -> String {
        let utf16 = Array(text.utf16)
        return String(decoding: utf16[range[0]..<range[1]], as: UTF16.self)
    }
}

/// A test extractor for `.note` files: one page per line, and `>> text` lines as annotations of
/// the page before.
struct NoteExtractor: TextExtractor {
    func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
        var pages: [ExtractedPage] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix(">> "), !pages.isEmpty {
                pages[pages.count - 1].annotations.append(String(line.dropFirst(3)))
            } else {
                pages.append(ExtractedPage(index: pages.count, text: String(line)))
            }
        }
        return ExtractedDocument(title: "notes", pages: pages)
    }
}
