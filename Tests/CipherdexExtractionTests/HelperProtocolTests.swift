@testable import CipherdexExtraction
import XCTest

/// The framed helper protocol round-trips and rejects truncated or malformed streams.
final class HelperProtocolTests: XCTestCase {
    /// Requests with and without a password.
    func testRequestRoundTrip() throws {
        let document: [UInt8] = Array("%PDF-1.4 body".utf8)
        let encoded = HelperProtocol.encodeRequest(document: document, password: "pässwörd")
        let decoded = try HelperProtocol.decodeRequest(encoded)
        XCTAssertEqual(decoded.document, document)
        XCTAssertEqual(decoded.password, "pässwörd")
        XCTAssertNil(try HelperProtocol.decodeRequest(HelperProtocol.encodeRequest(document: document, password: nil)).password)
        XCTAssertEqual(try HelperProtocol.decodeRequest(HelperProtocol.encodeRequest(document: [], password: "")).password, "")
    }

    /// Answers carry a document or an error.
    func testAnswerRoundTrip() throws {
        let document = ExtractedDocument(title: "T", metadata: ["author": "A"], pages: [ExtractedPage(index: 0, text: "x", annotations: ["n"])])
        XCTAssertEqual(try HelperProtocol.decodeAnswer(HelperProtocol.encodeAnswer(.success(document))), .success(document))
        for error in [ExtractionError.locked, .damaged(reason: "r"), .timedOut(seconds: 2), .helperCrashed(signal: 11, exitStatus: nil)] {
            XCTAssertEqual(try HelperProtocol.decodeAnswer(HelperProtocol.encodeAnswer(.failure(error))), .failure(error))
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
        XCTAssertThrowsError(try HelperProtocol.decodeRequest(HelperProtocol.requestMagic + HelperProtocol.header(.end, length: 0)))
    }
}
