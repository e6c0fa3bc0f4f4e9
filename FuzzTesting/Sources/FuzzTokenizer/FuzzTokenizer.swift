// libFuzzer target: the tokenizer (FuzzTesting/README.md).
import FuzzSupport

@testable import Cipherdex

/// Any bytes, raw and as repaired UTF-8: every token's byte range is non-empty, inside the
/// input, after the previous token's and, for valid UTF-8, on scalar boundaries; positions
/// never go back; token text is non-empty and at most `maximumTokenBytes` long.
private func fuzzTokenizer(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
    for stemming in [false, true] {
        check(SearchTokenizer.tokens(inUTF8: raw, stemming: stemming), bytes: raw, validUTF8: false)
        let text = String(decoding: raw, as: UTF8.self)
        let utf8 = Array(text.utf8)
        utf8.withUnsafeBufferPointer {
            check(SearchTokenizer.tokens(inUTF8: $0, stemming: stemming), bytes: $0, validUTF8: true)
        }
        guard
            SearchTokenizer.tokens(in: text, stemming: stemming)
                == utf8.withUnsafeBufferPointer({
                    SearchTokenizer.tokens(inUTF8: $0, stemming: stemming)
                })
        else { fatalError("String and UTF-8 tokenization differ") }
    }
    return 0
}

private func check(_ tokens: [SearchToken], bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool) {
    var previousEnd = 0
    var previousPosition = -1
    for token in tokens {
        let range = token.byteRange
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, !range.isEmpty else {
            fatalError("token range \(range) outside the \(bytes.count)-byte input")
        }
        guard token.position >= previousPosition else { fatalError("token positions go back") }
        if token.kind == .word {
            guard range.lowerBound >= previousEnd else { fatalError("word tokens overlap") }
        }
        if validUTF8 {
            let isContinuation = { (index: Int) in index < bytes.count && bytes[index] & 0xC0 == 0x80 }
            guard !isContinuation(range.lowerBound), !isContinuation(range.upperBound) else {
                fatalError("token range \(range) splits a scalar")
            }
        }
        guard !token.text.isEmpty, token.text.utf8.count <= SearchTokenizer.maximumTokenBytes else {
            fatalError("token text is empty or too long")
        }
        previousEnd = range.upperBound
        previousPosition = token.position
    }
}

/// The fuzzer's entry: libFuzzer over `fuzzTokenizer`.
@main
enum FuzzTokenizerMain {
    static func main() { runFuzzer(fuzzTokenizer) }
}
