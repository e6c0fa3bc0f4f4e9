import CipherdexExtraction
import CipherdexPDFWriter
import CipherdexTestSupport
import Foundation
import XCTest

/// Helpers shared by the extraction tests.
enum ExtractionTestSupport {
    /// The real-world PDF corpus (`PDFCorpus.directory`), or nil.
    static var corpusDirectory: String? { PDFCorpus.directory }

    /// The bytes of a corpus file, or nil (the test skips) when the corpus is absent.
    static func corpusFile(_ name: String) throws -> [UInt8] {
        guard let directory = corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            throw XCTSkip("corpus file \(name) not found")
        }
        return [UInt8](data)
    }

    /// `text` with every run of whitespace collapsed to one space, trimmed.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `text` without any whitespace (CJK extraction may add or drop spaces between glyphs).
    static func squeezed(_ text: String) -> String {
        String(text.filter { !$0.isWhitespace })
    }

    /// A helper stand-in: an executable shell script in a fresh temporary directory.
    static func script(_ body: String) throws -> String {
        let directory = TemporaryDirectory.make(prefix: "cipherdex-extract-tests-")
        let path = directory + "/fake-helper.sh"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// Builds a minimal one-page PDF by hand whose page carries a text note and a free-text
    /// annotation (cairo cannot write annotations), with a correct cross-reference table.
    static func annotatedPDF(note: String, freeText: String, pageText: String) -> [UInt8] {
        let stream = "BT /F1 18 Tf 72 720 Td (\(pageText)) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R 7 0 R] >>",
            "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Type /Annot /Subtype /Text /Rect [100 100 120 120] /Contents (\(note)) >>",
            "<< /Type /Annot /Subtype /FreeText /Rect [200 200 400 240] /DA (/Helv 12 Tf 0 g) /Contents (\(freeText)) >>",
        ]
        return handWrittenPDF(objects: objects)
    }

    /// A PDF of `objects` (numbered from 1, the first the catalog) with a correct
    /// cross-reference table.
    static func handWrittenPDF(objects: [String]) -> [UInt8] { makeHandWrittenPDF(objects: objects) }
}
