// The tokenizer before the fast path (commit dd3d0af): `SearchTokenizer.tokens(in:stemming:)`
// as it was, over the reference copies of its parts in this folder.

@testable import Cipherdex
@testable import CipherdexStore

enum ReferenceTokenizer {
    /// All tokens of `text`, exactly as the old `SearchTokenizer.tokens(in:stemming:)` cut them.
    static func tokens(in text: String, stemming: Bool = false) -> [SearchToken] {
        var copy = text
        return copy.withUTF8 { tokens(inUTF8: $0, stemming: stemming) }
    }

    /// All tokens of raw (possibly invalid) UTF-8 bytes.
    static func tokens(inUTF8 buffer: UnsafeBufferPointer<UInt8>, stemming: Bool) -> [SearchToken] {
        var scanner = ReferenceTokenScanner(buffer, stemming: stemming)
        var tokens: [SearchToken] = []
        while let token = scanner.next() {
            tokens.append(SearchToken(text: String(decoding: token.text, as: UTF8.self), byteRange: token.range,
                                      position: token.position, kind: token.kind))
        }
        return tokens
    }
}
