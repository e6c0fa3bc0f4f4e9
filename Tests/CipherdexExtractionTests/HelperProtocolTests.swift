import XCTest

@testable import CipherdexExtraction

/// The framed helper protocol round-trips and rejects truncated or malformed streams.
final class HelperProtocolTests: XCTestCase {
    /// Requests with and without a password.
    func testRequestRoundTrip() throws {
        let document: [UInt8] = Array("%PDF-1.4 body".utf8)
        let encoded = HelperProtocol.encodeRequest(document: document, password: "pässwörd")
        let decoded = try HelperProtocol.decodeRequest(encoded)
        XCTAssertEqual(decoded.document, document)
        XCTAssertEqual(decoded.password, "pässwörd")
        XCTAssertNil(
            try HelperProtocol.decodeRequest(HelperProtocol.encodeRequest(document: document, password: nil)).password)
        XCTAssertEqual(
            try HelperProtocol.decodeRequest(HelperProtocol.encodeRequest(document: [], password: "")).password, "")
    }

    /// A request is sent in pieces of at most the asked length, straight from the document's own
    /// storage, and the pieces make up exactly the encoded request.
    func testRequestIsSentInPiecesWithoutCopyingTheDocument() {
        let document: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let request = HelperProtocol.request(document: document, password: "pw")
        XCTAssertEqual(request.count, HelperProtocol.encodeRequest(document: document, password: "pw").count)
        var sent: [UInt8] = []
        var touchedDocumentStorage = false
        let documentStart = document.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        while sent.count < request.count {
            request.withBytes(from: sent.count, maximumLength: 7) { piece in
                XCTAssertLessThanOrEqual(piece.count, 7)
                XCTAssertGreaterThan(piece.count, 0)
                if UInt(bitPattern: piece.baseAddress) >= documentStart,
                    UInt(bitPattern: piece.baseAddress) < documentStart + 1000
                {
                    touchedDocumentStorage = true
                }
                sent += piece
            }
        }
        XCTAssertEqual(sent, HelperProtocol.encodeRequest(document: document, password: "pw"))
        XCTAssertTrue(touchedDocumentStorage, "the document's bytes are sent from its own buffer")
    }

    /// Answers carry a document or an error.
    func testAnswerRoundTrip() throws {
        let document = ExtractedDocument(
            title: "T", metadata: ["author": "A"], pages: [ExtractedPage(index: 0, text: "x", annotations: ["n"])])
        XCTAssertEqual(
            try HelperProtocol.decodeAnswer(HelperProtocol.encodeAnswer(.success(document))), .success(document))
        for error in [
            ExtractionError.locked, .damaged(reason: "r"), .timedOut(seconds: 2),
            .helperCrashed(signal: 11, exitStatus: nil),
        ] {
            XCTAssertEqual(
                try HelperProtocol.decodeAnswer(HelperProtocol.encodeAnswer(.failure(error))), .failure(error))
        }
    }

    /// Every proper prefix of a stream is rejected, as are bad magic and trailing bytes.
    func testTruncationAndGarbageAreRejected() {
        let encoded = HelperProtocol.encodeAnswer(.failure(.locked))
        for length in 0..<encoded.count {
            XCTAssertThrowsError(try HelperProtocol.decodeAnswer(Array(encoded.prefix(length))), "prefix \(length)")
        }
        XCTAssertThrowsError(try HelperProtocol.decodeAnswer(encoded + [0]))
        XCTAssertThrowsError(try HelperProtocol.decodeRequest(encoded))
        XCTAssertThrowsError(
            try HelperProtocol.decodeRequest(HelperProtocol.requestMagic + HelperProtocol.header(.end, length: 0)))
    }

    /// Requests read frame by frame; several back to back; end of input between requests.
    func testStreamedRequests() throws {
        let stream =
            HelperProtocol.encodeRequest(document: Array("one".utf8), password: "pw")
            + HelperProtocol.encodeRequest(document: Array("two".utf8), password: nil)
        var offset = 0
        let read: (Int) -> [UInt8] = { count in
            defer { offset = min(stream.count, offset + count) }
            return Array(stream[offset..<min(stream.count, offset + count)])
        }
        let first = try XCTUnwrap(try HelperProtocol.readRequest(read))
        XCTAssertEqual(first.document, Array("one".utf8))
        XCTAssertEqual(first.password, "pw")
        let second = try XCTUnwrap(try HelperProtocol.readRequest(read))
        XCTAssertEqual(second.document, Array("two".utf8))
        XCTAssertNil(second.password)
        XCTAssertNil(try HelperProtocol.readRequest(read))

        let single = HelperProtocol.encodeRequest(document: Array("doc".utf8), password: nil)
        for length in 1..<single.count {
            var position = 0
            let truncated = Array(single.prefix(length))
            XCTAssertThrowsError(
                try HelperProtocol.readRequest { count in
                    defer { position = min(truncated.count, position + count) }
                    return Array(truncated[position..<min(truncated.count, position + count)])
                }, "prefix \(length)")
        }
    }

    /// An answer fed a byte at a time completes exactly at its end frame; garbage is rejected at
    /// the first wrong byte, and an oversized frame as soon as its header is in.
    func testAnswerReader() {
        let document = ExtractedDocument(title: "T", pages: [ExtractedPage(index: 0, text: "x")])
        let encoded = HelperProtocol.encodeAnswer(.success(document))
        var reader = HelperProtocol.AnswerReader(maximumLength: 1 << 20)
        for (index, byte) in encoded.enumerated() {
            switch reader.append([byte]) {
            case .incomplete: XCTAssertLessThan(index, encoded.count - 1)
            case .complete(let answer, let trailing):
                XCTAssertEqual(index, encoded.count - 1)
                XCTAssertEqual(answer, .success(document))
                XCTAssertEqual(trailing, 0)
            default: XCTFail("byte \(index)")
            }
        }
        var trailing = HelperProtocol.AnswerReader(maximumLength: 1 << 20)
        guard case .complete(_, 2) = trailing.append(encoded + [1, 2]) else { return XCTFail("trailing bytes") }
        var garbage = HelperProtocol.AnswerReader(maximumLength: 1 << 20)
        guard case .malformed = garbage.append(Array("CDXB".utf8)) else { return XCTFail("bad magic") }
        var small = HelperProtocol.AnswerReader(maximumLength: 10)
        guard case .tooLarge = small.append(HelperProtocol.answerMagic + HelperProtocol.header(.result, length: 11))
        else { return XCTFail("too large") }
    }

    /// The options frame (OCR candidates, one page's OCR) round-trips, by whole stream and frame
    /// by frame; a second options frame or undecodable JSON is refused.
    func testOptionsFrameRoundTrips() throws {
        let options = HelperRequestOptions(
            ocrCandidatesBelow: 16,
            ocrPage: OCRPageRequest(
                pageIndex: 2, languages: "eng+fra", dpi: 300, maximumPixels: 1 << 24, deadlineSeconds: 9))
        let encoded = HelperProtocol.encodeRequest(document: Array("doc".utf8), password: "pw", options: options)
        XCTAssertEqual(try HelperProtocol.decodeRequest(encoded).options, options)
        var offset = 0
        let read: (Int) -> [UInt8] = { count in
            defer { offset = min(encoded.count, offset + count) }
            return Array(encoded[offset..<min(encoded.count, offset + count)])
        }
        let streamed = try XCTUnwrap(try HelperProtocol.readRequest(read))
        XCTAssertEqual(streamed.options, options)
        XCTAssertEqual(streamed.document, Array("doc".utf8))
        XCTAssertNil(
            try HelperProtocol.decodeRequest(HelperProtocol.encodeRequest(document: [1], password: nil)).options)
        let junk = Array("{not json".utf8)
        let bad =
            HelperProtocol.requestMagic + HelperProtocol.header(.options, length: junk.count) + junk
            + HelperProtocol.header(.document, length: 1) + [1] + HelperProtocol.header(.end, length: 0)
        XCTAssertThrowsError(try HelperProtocol.decodeRequest(bad))
    }
}
