import Foundation

/// The binary protocol between `IsolatedPDFExtractor` and the `cipherdex-extract` helper.
///
/// Both directions are a 5-byte magic (`CDXQ\u{1}` for requests, `CDXA\u{1}` for answers) then
/// frames of `tag (1 byte) | length (UInt32, big-endian) | payload`, ending with an empty `E`
/// frame so a truncated stream (a crash mid-write) is detected.
///
/// - Request: optional `P` frame (the password, UTF-8), optional `O` frame
///   (`HelperRequestOptions` as JSON: OCR candidates, or the OCR of one page), one `D` frame (the
///   PDF bytes), `E`.
/// - Answer: one `B` frame (`ExtractedDocument` in `ExtractedDocumentCoding`'s binary form; `J`,
///   the same as JSON, from helpers before it, is still read) or one `X` frame
///   (`ExtractionError` as JSON), then `E`.
///
/// A helper serves requests one after another on the same streams, one answer per request in
/// order, so both sides read frame by frame (`readRequest`, `AnswerReader`) rather than to end of
/// file; end of file before a request's first byte means there are no more requests.
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
        case password = 0x50  // P
        /// The document bytes (request).
        case document = 0x44  // D
        /// `HelperRequestOptions` as JSON (request).
        case options = 0x4F  // O
        /// The extracted document as JSON (answer: from helpers before the binary form, or a page
        /// index past 32 bits).
        case result = 0x4A  // J
        /// The extracted document in `ExtractedDocumentCoding`'s binary form (answer).
        case binaryResult = 0x42  // B
        /// An `ExtractionError` as JSON (answer).
        case error = 0x58  // X
        /// End of stream, empty payload (both).
        case end = 0x45  // E
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
        return [
            tag.rawValue, UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
            UInt8(value & 0xFF),
        ]
    }

    /// A request ready to send, in three parts so that the document bytes are never copied
    /// (a document may be hundreds of MiB): the magic, password frame and document frame
    /// header; the document (sharing the caller's storage); the end frame.
    package struct Request: Sendable {
        /// Magic, password frame and document frame header.
        package let head: [UInt8]
        /// The document bytes.
        package let document: [UInt8]
        /// The end frame.
        package let tail: [UInt8]

        /// The request's length in bytes.
        package var count: Int { head.count + document.count + tail.count }

        /// Calls `body` with up to `maximumLength` of the request's bytes from `offset` (fewer
        /// at the end of a part); `offset` must be less than `count`.
        package func withBytes<R>(from offset: Int, maximumLength: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            var start = offset
            for part in [head, document, tail] {
                if start < part.count {
                    return part.withUnsafeBytes { bytes in
                        body(UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + maximumLength)]))
                    }
                }
                start -= part.count
            }
            preconditionFailure("offset past the end of the request")
        }

        /// The whole request as one array (a copy: for tests and small requests).
        package var bytes: [UInt8] { head + document + tail }
    }

    /// A request for `document`, `password` and `options`, without copying the document.
    package static func request(document: [UInt8], password: String?, options: HelperRequestOptions? = nil) -> Request {
        var head = requestMagic
        if let password {
            let utf8 = Array(password.utf8)
            head += header(.password, length: utf8.count) + utf8
        }
        if let options, let json = try? JSONEncoder().encode(options) {
            head += header(.options, length: json.count) + [UInt8](json)
        }
        head += header(.document, length: document.count)
        return Request(head: head, document: document, tail: header(.end, length: 0))
    }

    /// A whole request: magic, password, document and end frames.
    package static func encodeRequest(
        document: [UInt8], password: String?, options: HelperRequestOptions? = nil
    ) -> [UInt8] {
        request(document: document, password: password, options: options).bytes
    }

    /// A whole answer carrying `outcome`.
    package static func encodeAnswer(_ outcome: Result<ExtractedDocument, ExtractionError>) -> [UInt8] {
        // The binary form is written in place, after room for its frame header: the answer is
        // one buffer, not a payload copied into a second one.
        if case .success(let document) = outcome {
            var answer = answerMagic + header(.binaryResult, length: 0)
            answer.reserveCapacity(answer.count + ExtractedDocumentCoding.encodedLength(document) + 5)
            guard ExtractedDocumentCoding.append(document, to: &answer) else {
                return jsonAnswer(outcome)
            }
            let length = answer.count - answerMagic.count - 5
            answer.replaceSubrange(
                answerMagic.count..<(answerMagic.count + 5), with: header(.binaryResult, length: length))
            answer += header(.end, length: 0)
            return answer
        }
        return jsonAnswer(outcome)
    }

    /// A whole answer carrying `outcome` as JSON (`J` or `X`).
    private static func jsonAnswer(_ outcome: Result<ExtractedDocument, ExtractionError>) -> [UInt8] {
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
            guard let tag = Tag(rawValue: bytes[index]) else {
                throw ProtocolError("unknown frame tag \(bytes[index])")
            }
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

    /// Decodes an answer stream into the document or the error the helper reported; the stream
    /// must hold exactly one answer.
    package static func decodeAnswer(_ bytes: [UInt8]) throws -> Result<ExtractedDocument, ExtractionError> {
        var reader = AnswerReader(maximumLength: Int.max)
        switch reader.append(bytes) {
        case .incomplete: throw ProtocolError("missing end frame")
        case .malformed(let reason): throw ProtocolError(reason)
        case .tooLarge: throw ProtocolError("frame too large")
        case .complete(let answer, let trailingBytes):
            guard trailingBytes == 0 else { throw ProtocolError("data after the end frame") }
            return answer
        }
    }

    /// Reads one answer from a stream as its bytes arrive, rejecting a malformed one at the first
    /// wrong byte and a frame longer than `maximumLength` as soon as its header is in.
    package struct AnswerReader {
        /// Where the answer stands after the bytes so far.
        package enum Status {
            /// More bytes are needed.
            case incomplete
            /// The answer is complete; `trailingBytes` bytes followed its end frame.
            case complete(Result<ExtractedDocument, ExtractionError>, trailingBytes: Int)
            /// The bytes do not follow the protocol.
            case malformed(String)
            /// A frame announces more than `maximumLength` bytes.
            case tooLarge
        }

        /// The largest frame payload accepted.
        package let maximumLength: Int
        /// The bytes received so far.
        private var buffer: [UInt8] = []
        /// Where the next unparsed frame starts in `buffer`.
        private var index = 0
        /// The answer frame, once complete.
        private var answerFrame: Frame?

        /// A reader for one answer.
        package init(maximumLength: Int) { self.maximumLength = maximumLength }

        /// Adds `bytes` and reports where the answer stands.
        package mutating func append(_ bytes: [UInt8]) -> Status {
            buffer += bytes
            let magicCount = min(buffer.count, answerMagic.count)
            guard buffer[0..<magicCount].elementsEqual(answerMagic[0..<magicCount]) else {
                return .malformed("bad magic")
            }
            guard buffer.count >= answerMagic.count else { return .incomplete }
            index = max(index, answerMagic.count)
            while buffer.count - index >= 1 {
                guard let tag = Tag(rawValue: buffer[index]) else {
                    return .malformed("unknown frame tag \(buffer[index])")
                }
                switch (answerFrame, tag) {
                case (nil, .result), (nil, .binaryResult), (nil, .error), (.some, .end): break
                default: return .malformed("unexpected frame \(tag)")
                }
                guard buffer.count - index >= 5 else { return .incomplete }
                let length = buffer[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
                guard length <= maximumLength else { return .tooLarge }
                if tag == .end {
                    guard length == 0 else { return .malformed("non-empty end frame") }
                    return decode(trailingBytes: buffer.count - index - 5)
                }
                guard buffer.count - index - 5 >= length else { return .incomplete }
                answerFrame = Frame(tag: tag, payload: Array(buffer[(index + 5)..<(index + 5 + length)]))
                index += 5 + length
            }
            return .incomplete
        }

        /// Decodes the complete answer frame.
        private func decode(trailingBytes: Int) -> Status {
            guard let frame = answerFrame else { return .malformed("expected one answer frame") }
            if frame.tag == .binaryResult {
                do {
                    let document = try ExtractedDocumentCoding.decode(frame.payload[...])
                    return .complete(.success(document), trailingBytes: trailingBytes)
                } catch {
                    return .malformed("undecodable document: \(error.reason)")
                }
            }
            let decoder = JSONDecoder()
            if frame.tag == .result {
                guard let document = try? decoder.decode(ExtractedDocument.self, from: Data(frame.payload)) else {
                    return .malformed("undecodable document JSON")
                }
                return .complete(.success(document), trailingBytes: trailingBytes)
            }
            guard let error = try? decoder.decode(ExtractionError.self, from: Data(frame.payload)) else {
                return .malformed("undecodable error JSON")
            }
            return .complete(.failure(error), trailingBytes: trailingBytes)
        }
    }

    /// Reads one request frame by frame with `read(count)`, which returns up to `count` bytes and
    /// fewer only at end of file. Returns nil at end of file before the first byte (no more
    /// requests); throws for a truncated or malformed request. The same rules as `decodeRequest`.
    package static func readRequest(_ read: (Int) -> [UInt8]) throws -> (
        document: [UInt8], password: String?, options: HelperRequestOptions?
    )? {
        let magic = read(requestMagic.count)
        if magic.isEmpty { return nil }
        guard magic == requestMagic else { throw ProtocolError("bad magic") }
        var password: String?
        var options: HelperRequestOptions?
        var document: [UInt8]?
        while true {
            let header = read(5)
            guard header.count == 5 else {
                throw ProtocolError(header.isEmpty ? "missing end frame" : "truncated frame header")
            }
            guard let tag = Tag(rawValue: header[0]) else { throw ProtocolError("unknown frame tag \(header[0])") }
            let length = header[1...4].reduce(0) { $0 << 8 | Int($1) }
            switch tag {
            case .end:
                guard length == 0 else { throw ProtocolError("non-empty end frame") }
                guard let document else { throw ProtocolError("no document frame") }
                return (document, password, options)
            case .password, .document, .options:
                let payload = read(length)
                guard payload.count == length else { throw ProtocolError("truncated frame") }
                if tag == .options {
                    guard options == nil else { throw ProtocolError("two options frames") }
                    options = try decodeOptions(payload)
                } else if tag == .password {
                    guard password == nil else { throw ProtocolError("two password frames") }
                    password = String(decoding: payload, as: UTF8.self)
                } else {
                    guard document == nil else { throw ProtocolError("two document frames") }
                    document = payload
                }
            default:
                throw ProtocolError("unexpected frame \(tag) in a request")
            }
        }
    }

    /// Decodes an options frame's JSON.
    private static func decodeOptions(_ payload: [UInt8]) throws -> HelperRequestOptions {
        guard let options = try? JSONDecoder().decode(HelperRequestOptions.self, from: Data(payload)) else {
            throw ProtocolError("undecodable options JSON")
        }
        return options
    }

    /// Decodes a request stream into the document bytes, the optional password and options.
    package static func decodeRequest(_ bytes: [UInt8]) throws -> (
        document: [UInt8], password: String?, options: HelperRequestOptions?
    ) {
        let frames = try decodeFrames(bytes, magic: requestMagic)
        var password: String?
        var options: HelperRequestOptions?
        var document: [UInt8]?
        for frame in frames {
            switch frame.tag {
            case .options:
                guard options == nil else { throw ProtocolError("two options frames") }
                options = try decodeOptions(frame.payload)
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
        return (document, password, options)
    }
}
