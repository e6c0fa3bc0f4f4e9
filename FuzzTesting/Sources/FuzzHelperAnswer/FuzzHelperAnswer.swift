// libFuzzer target: the extraction helper protocol's readers (FuzzTesting/README.md).
import FuzzSupport

@testable import CipherdexExtraction

/// First byte: the piece size the answer is fed in; the rest: the bytes a (possibly hostile)
/// helper writes. The streaming reader and the whole-answer decoder never trap, agree, and
/// honour the length limit; a document they read round-trips through the binary form; the
/// request reader (the helper's side) never traps either.
private func fuzzHelperAnswer(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let piece = Int(start[0] % 64) + 1
    let bytes = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
    var reader = HelperProtocol.AnswerReader(maximumLength: 1 << 20)
    var streamed: HelperProtocol.AnswerReader.Status = .incomplete
    var offset = 0
    feeding: while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        streamed = reader.append(Array(bytes[offset..<end]))
        offset = end
        switch streamed {
        case .incomplete: continue
        default: break feeding
        }
    }
    let whole = try? HelperProtocol.decodeAnswer(bytes)
    if case .complete(let answer, let trailing) = streamed, trailing == 0, offset == bytes.count {
        guard let whole, whole == answer else { fatalError("streamed and whole answers differ") }
    }
    // A document read from either form comes back exactly through the binary form: equal, and
    // byte for byte (encoding it again gives the same bytes; `String`'s `==` alone would take
    // canonically equivalent text as equal).
    if case .success(let document) = whole, let encoded = ExtractedDocumentCoding.encode(document) {
        guard let decoded = try? ExtractedDocumentCoding.decode(encoded[...]), decoded == document,
            ExtractedDocumentCoding.encode(decoded) == encoded
        else { fatalError("binary form does not round-trip") }
    }
    _ = try? HelperProtocol.decodeRequest(bytes)
    var position = 0
    _ = try? HelperProtocol.readRequest { wanted in
        let end = min(position + wanted, bytes.count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzHelperAnswer`.
@main
enum FuzzHelperAnswerMain {
    static func main() { runFuzzer(fuzzHelperAnswer) }
}
