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

    /// The answer is a `B` frame and decodes to the same document, whatever its fields.
    func testAnswerIsBinaryAndRoundTrips() throws {
        for document in [
            Self.document, ExtractedDocument(title: nil, pages: []),
            ExtractedDocument(title: "", metadata: [:], pages: [ExtractedPage(index: 0, text: "x")]),
        ] {
            let answer = HelperProtocol.encodeAnswer(.success(document))
            XCTAssertEqual(answer[HelperProtocol.answerMagic.count], HelperProtocol.Tag.binaryResult.rawValue)
            XCTAssertEqual(try HelperProtocol.decodeAnswer(answer), .success(document))
            let payload = try XCTUnwrap(ExtractedDocumentCoding.encode(document))
            XCTAssertEqual(try ExtractedDocumentCoding.decode(payload[...]), document)
        }
    }

    /// The same document always encodes to the same bytes (metadata keys in order).
    func testEncodingIsDeterministic() throws {
        let first = try XCTUnwrap(ExtractedDocumentCoding.encode(Self.document))
        var reordered = Self.document
        reordered.metadata = Dictionary(uniqueKeysWithValues: Self.document.metadata.reversed())
        XCTAssertEqual(ExtractedDocumentCoding.encode(reordered), first)
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
        XCTAssertThrowsError(try ExtractedDocumentCoding.decode((payload + [0])[...]))
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
    /// malformed answer.
    func testMalformedPayloadsAreRefused() throws {
        func string(_ bytes: [UInt8]) -> [UInt8] { [0, 0, 0, UInt8(bytes.count)] + bytes }
        let page: [UInt8] = [0, 0, 0, 0, 0] + string(Array("x".utf8)) + [0, 0, 0, 0]
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("document flags", [2, 0, 0, 0, 0, 0, 0, 0, 0]),
            ("page flags", [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 4] + string([]) + [0, 0, 0, 0]),
            ("invalid UTF-8", [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] + string([0xC3, 0x28]) + [0, 0, 0, 0]),
            ("huge page count", [0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + page),
            (
                "huge annotation count",
                [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] + string([]) + [0xFF, 0xFF, 0xFF, 0xFF]
            ),
            ("string past the end", [1, 0xFF, 0xFF, 0xFF, 0xFF]),
            (
                "repeated key",
                [0, 0, 0, 0, 2] + string([0x61]) + string([]) + string([0x61]) + string([]) + [0, 0, 0, 0]
            ),
        ]
        for (name, payload) in cases {
            XCTAssertThrowsError(try ExtractedDocumentCoding.decode(payload[...]), name)
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
