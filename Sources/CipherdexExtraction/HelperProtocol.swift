import Foundation

/// The binary protocol between `IsolatedPDFExtractor` and the `cipherdex-extract` helper.
///
/// Both directions are a 5-byte magic (`CDXQ\u{1}` for requests, `CDXA\u{1}` for answers) then
/// frames of `tag (1 byte) | length (UInt32, big-endian) | payload`, ending with an empty `E`
/// frame so a truncated stream (a crash mid-write) is detected.
///
/// - Request: optional `P` frame (the password, UTF-8), one `D` frame (the PDF bytes), `E`.
/// - Answer: one `J` frame (`ExtractedDocument` as JSON) or one `X` frame (`ExtractionError` as
///   JSON), then `E`.
package enum HelperProtocol {
    /// Starts every request.
    package static let requestMagic: [UInt8] = Array("CDXQ".utf8) + [1]
    /// Starts every answer.
    package static let answerMagic: [UInt8] = Array("CDXA".utf8) + [1]
    /// The largest payload a frame can carry.
    package static let maximumFrameLength = Int(UInt32.max)

    /// Frame tags.
    package enum Tag: UInt8, Sendable {
        /// The password (request).
        case password = 0x50 // P
        /// The document bytes (request).
        case document = 0x44 // D
        /// The extracted document as JSON (answer).
        case result = 0x4A // J
        /// An `ExtractionError` as JSON (answer).
        case error = 0x58 // X
        /// End of stream, empty payload (both).
        case end = 0x45 // E
    }

    /// One decoded frame.
    package struct Frame: Equatable, Sendable {
        /// What the payload is.
        package var tag: Tag
        /// The payload bytes.
        package var payload: [UInt8]

        /// Creates a frame.
        package init(tag: Tag, payload: [UInt8]) {
            self.tag = tag
            self.payload = payload
        }
    }

    /// A request or answer that does not follow the protocol.
    package struct ProtocolError: Error, Equatable, Sendable {
        /// What was wrong.
        package var reason: String

        /// Creates an error.
        package init(_ reason: String) { self.reason = reason }
    }

    /// The encoded frame header (tag and length) for a payload of `length` bytes.
    package static func header(_ tag: Tag, length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= maximumFrameLength, "frame too large")
        let value = UInt32(length)
        return [tag.rawValue, UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// A whole request: magic, password, document and end frames.
    package static func encodeRequest(document: [UInt8], password: String?) -> [UInt8] {
        var bytes = requestMagic
        if let password {
            let utf8 = Array(password.utf8)
            bytes += header(.password, length: utf8.count) + utf8
        }
        bytes.reserveCapacity(bytes.count + document.count + 16)
        bytes += header(.document, length: document.count)
        bytes += document
        bytes += header(.end, length: 0)
        return bytes
    }

    /// A whole answer carrying `outcome`.
    package static func encodeAnswer(_ outcome: Result<ExtractedDocument, ExtractionError>) -> [UInt8] {
        let encoder = JSONEncoder()
        let (tag, json): (Tag, Data)
        switch outcome {
        case .success(let document):
            (tag, json) = (.result, (try? encoder.encode(document)) ?? Data())
        case .failure(let error):
            (tag, json) = (.error, (try? encoder.encode(error)) ?? Data())
        }
        return answerMagic + header(tag, length: json.count) + [UInt8](json) + header(.end, length: 0)
    }

    /// Splits `bytes` (a whole stream) into frames after checking `magic`; the stream must end
    /// with the `E` frame and nothing after it.
    package static func decodeFrames(_ bytes: [UInt8], magic: [UInt8]) throws -> [Frame] {
        guard bytes.starts(with: magic) else { throw ProtocolError("bad magic") }
        var frames: [Frame] = []
        var index = magic.count
        while index < bytes.count {
            guard bytes.count - index >= 5 else { throw ProtocolError("truncated frame header") }
            guard let tag = Tag(rawValue: bytes[index]) else { throw ProtocolError("unknown frame tag \(bytes[index])") }
            let length = bytes[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            index += 5
            guard bytes.count - index >= length else { throw ProtocolError("truncated frame") }
            frames.append(Frame(tag: tag, payload: Array(bytes[index..<(index + length)])))
            index += length
            if tag == .end {
                guard index == bytes.count else { throw ProtocolError("data after the end frame") }
                return frames
            }
        }
        throw ProtocolError("missing end frame")
    }

    /// Decodes an answer stream into the document or the error the helper reported.
    package static func decodeAnswer(_ bytes: [UInt8]) throws -> Result<ExtractedDocument, ExtractionError> {
        let frames = try decodeFrames(bytes, magic: answerMagic)
        guard frames.count == 2, let first = frames.first else { throw ProtocolError("expected one answer frame") }
        let decoder = JSONDecoder()
        switch first.tag {
        case .result:
            guard let document = try? decoder.decode(ExtractedDocument.self, from: Data(first.payload)) else {
                throw ProtocolError("undecodable document JSON")
            }
            return .success(document)
        case .error:
            guard let error = try? decoder.decode(ExtractionError.self, from: Data(first.payload)) else {
                throw ProtocolError("undecodable error JSON")
            }
            return .failure(error)
        default:
            throw ProtocolError("unexpected frame \(first.tag)")
        }
    }

    /// Decodes a request stream into the document bytes and the optional password.
    package static func decodeRequest(_ bytes: [UInt8]) throws -> (document: [UInt8], password: String?) {
        let frames = try decodeFrames(bytes, magic: requestMagic)
        var password: String?
        var document: [UInt8]?
        for frame in frames {
            switch frame.tag {
            case .password:
                guard password == nil else { throw ProtocolError("two password frames") }
                password = String(decoding: frame.payload, as: UTF8.self)
            case .document:
                guard document == nil else { throw ProtocolError("two document frames") }
                document = frame.payload
            case .end:
                break
            default:
                throw ProtocolError("unexpected frame \(frame.tag) in a request")
            }
        }
        guard let document else { throw ProtocolError("no document frame") }
        return (document, password)
    }
}
