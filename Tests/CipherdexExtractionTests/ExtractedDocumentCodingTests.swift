import Foundation
import XCTest

@testable import CipherdexExtraction

/// The helper's binary answer: documents come back exactly, a malformed payload is refused
/// without trapping or reserving what it claims, and JSON answers of older helpers still read.
final class ExtractedDocumentCodingTests: XCTestCase {
    /// A document with every field in use: scripts beyond ASCII, an empty page, flags, metadata.
    static let document = ExtractedDocument(
        title: "Bericht über Dosis — 報告",
        metadata: ["author": "Ana Müller", "producer": "x", "creationDate": "2026-12-06T10:00:00Z"],
        pages: [
            ExtractedPage(index: 0, text: "The patient's dose: 5 mg\n\u{0C}tab\tend", annotations: ["note", ""]),
            ExtractedPage(index: 1, text: ""),
            ExtractedPage(index: 2, text: "مرحبا بالعالم 🙂 e\u{301}", isOCR: true),
            ExtractedPage(index: 7, text: "\u{0}nul kept", annotations: ["a", "b", "c"], needsOCR: true),
        ])

    /// Every string of `document` as UTF-8 bytes, with the page numbers and flags: `String`'s `==`
    /// takes canonically equivalent strings (`é` and `e\u{301}`) as equal, this does not.
    static func bytes(of document: ExtractedDocument) -> [[UInt8]] {
        var fields: [[UInt8]] = [document.title.map { [1] + Array($0.utf8) } ?? [0]]
        fields.append(withUnsafeBytes(of: document.metadata.count) { Array($0) })
        for key in document.metadata.keys.sorted() {
            fields += [Array(key.utf8), Array(document.metadata[key]!.utf8)]
        }
        for page in document.pages {
            fields.append(withUnsafeBytes(of: page.index) { Array($0) } + [page.isOCR ? 1 : 0, page.needsOCR ? 1 : 0])
            fields.append(Array(page.text.utf8))
            fields.append(withUnsafeBytes(of: page.annotations.count) { Array($0) })
            fields += page.annotations.map { Array($0.utf8) }
        }
        return fields
    }

    /// The answer is a `B` frame and decodes to the same document, byte for byte, whatever its
    /// fields.
    func testAnswerIsBinaryAndRoundTrips() throws {
        for document in [
            Self.document, ExtractedDocument(title: nil, pages: []),
            ExtractedDocument(title: "", metadata: [:], pages: [ExtractedPage(index: 0, text: "x")]),
            ExtractedDocument(
                title: "e\u{301}", metadata: ["é": "e\u{301}"], pages: [ExtractedPage(index: 0, text: "é")]),
        ] {
            let answer = HelperProtocol.encodeAnswer(.success(document))
            XCTAssertEqual(answer[HelperProtocol.answerMagic.count], HelperProtocol.Tag.binaryResult.rawValue)
            guard case .success(let answered) = try HelperProtocol.decodeAnswer(answer) else {
                return XCTFail("not a document")
            }
            XCTAssertEqual(Self.bytes(of: answered), Self.bytes(of: document))
            let payload = try XCTUnwrap(ExtractedDocumentCoding.encode(document))
            XCTAssertEqual(payload.count, ExtractedDocumentCoding.encodedLength(document))
            XCTAssertEqual(Self.bytes(of: try ExtractedDocumentCoding.decode(payload[...])), Self.bytes(of: document))
        }
    }

    /// The encoding, byte for byte: metadata keys in ascending order whatever the dictionary's
    /// order, every integer big-endian.
    func testEncodingIsExactlyTheDocumentedForm() throws {
        func string(_ text: String) -> [UInt8] { [0, 0, 0, UInt8(text.utf8.count)] + Array(text.utf8) }
        let document = ExtractedDocument(
            title: "T", metadata: ["b": "2", "a": "1", "c": ""],
            pages: [ExtractedPage(index: 258, text: "xy", annotations: ["n"], needsOCR: true)])
        let expected: [UInt8] =
            [1] + string("T") + [0, 0, 0, 3] + string("a") + string("1") + string("b") + string("2") + string("c")
            + string("") + [0, 0, 0, 1] + [0, 0, 1, 2] + [2] + string("xy") + [0, 0, 0, 1] + string("n")
        XCTAssertEqual(ExtractedDocumentCoding.encode(document), expected)
    }

    /// A page index past 32 bits goes as JSON, and still comes back exactly.
    func testIndexPastThirtyTwoBitsFallsBackToJSON() throws {
        let document = ExtractedDocument(title: nil, pages: [ExtractedPage(index: 1 << 33, text: "far")])
        XCTAssertNil(ExtractedDocumentCoding.encode(document))
        let answer = HelperProtocol.encodeAnswer(.success(document))
        XCTAssertEqual(answer[HelperProtocol.answerMagic.count], HelperProtocol.Tag.result.rawValue)
        XCTAssertEqual(try HelperProtocol.decodeAnswer(answer), .success(document))
    }

    /// A `J` answer (the document as JSON, as helpers before the binary form wrote it) reads.
    func testJSONAnswerOfAnOlderHelperStillReads() throws {
        let json = [UInt8](try JSONEncoder().encode(Self.document))
        let answer =
            HelperProtocol.answerMagic + HelperProtocol.header(.result, length: json.count) + json
            + HelperProtocol.header(.end, length: 0)
        XCTAssertEqual(try HelperProtocol.decodeAnswer(answer), .success(Self.document))
    }

    /// Every proper prefix and every extension of a payload is refused.
    func testTruncatedOrExtendedPayloadIsRefused() throws {
        let payload = try XCTUnwrap(ExtractedDocumentCoding.encode(Self.document))
        for length in 0..<payload.count {
            XCTAssertThrowsError(try ExtractedDocumentCoding.decode(payload[..<length]), "prefix \(length)")
        }
        XCTAssertThrowsError(try ExtractedDocumentCoding.decode((payload + [0])[...])) { error in
            XCTAssertEqual((error as? ExtractedDocumentCoding.Malformed)?.reason, "bytes after the last page")
        }
        // A slice that does not start at index 0 reads the same.
        let shifted = ([9, 9, 9] + payload)[3...]
        XCTAssertEqual(Self.bytes(of: try ExtractedDocumentCoding.decode(shifted)), Self.bytes(of: Self.document))
    }

    /// Flipping any single byte never traps: the result is an error or some document (a text
    /// byte changed into another valid one), never a crash or a huge allocation.
    func testDamagedPayloadNeverTraps() throws {
        let payload = try XCTUnwrap(ExtractedDocumentCoding.encode(Self.document))
        for index in payload.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = payload
                damaged[index] ^= flip
                _ = try? ExtractedDocumentCoding.decode(damaged[...])
            }
        }
    }

    /// Specific malformations, each refused with its reason; an answer frame carrying one is a
    /// malformed answer. The last is well formed.
    func testMalformedPayloadsAreRefused() throws {
        func string(_ bytes: [UInt8]) -> [UInt8] { [0, 0, 0, UInt8(bytes.count)] + bytes }
        let page: [UInt8] = [0, 0, 0, 0, 0] + string(Array("x".utf8)) + [0, 0, 0, 0]
        let cases: [(String, [UInt8])] = [
            ("truncated", []),
            ("unknown document flags 2", [2, 0, 0, 0, 0, 0, 0, 0, 0]),
            ("unknown page flags 4", [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 4] + string([]) + [0, 0, 0, 0]),
            ("invalid UTF-8", [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] + string([0xC3, 0x28]) + [0, 0, 0, 0]),
            ("count past the end", [0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + page),
            (
                "count past the end",
                [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] + string([]) + [0xFF, 0xFF, 0xFF, 0xFF]
            ),
            ("string past the end", [1, 0xFF, 0xFF, 0xFF, 0xFF]),
            (
                "metadata keys out of order",
                [0, 0, 0, 0, 2] + string([0x61]) + string([]) + string([0x61]) + string([]) + [0, 0, 0, 0]
            ),
            (
                "metadata keys out of order",
                [0, 0, 0, 0, 2] + string([0x62]) + string([]) + string([0x61]) + string([]) + [0, 0, 0, 0]
            ),
        ]
        for (reason, payload) in cases {
            XCTAssertThrowsError(try ExtractedDocumentCoding.decode(payload[...]), reason) { error in
                XCTAssertEqual((error as? ExtractedDocumentCoding.Malformed)?.reason, reason)
            }
            let name = reason
            let answer =
                HelperProtocol.answerMagic + HelperProtocol.header(.binaryResult, length: payload.count) + payload
                + HelperProtocol.header(.end, length: 0)
            var reader = HelperProtocol.AnswerReader(maximumLength: 1 << 20)
            guard case .malformed = reader.append(answer) else { return XCTFail("\(name): answer accepted") }
        }
        let valid: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1] + page
        XCTAssertEqual(
            try ExtractedDocumentCoding.decode(valid[...]),
            ExtractedDocument(title: nil, pages: [ExtractedPage(index: 0, text: "x")]))
    }
}
