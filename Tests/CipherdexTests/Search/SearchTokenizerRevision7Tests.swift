import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Tokenizer revision 7: half-width voiced kana fold to the full-width kana (NFKC as NFKD then
/// NFC: Foundation's NFKC on Linux left `ｶﾞ` as `カ` and a combining mark), and decomposed Hangul
/// (conjoining jamo) is cut as the syllables it spells. Tokens are compared as UTF-8 bytes:
/// Swift strings compare canonically equivalent text as equal (`カ\u{3099}` == `ガ`), which is
/// how the half-width test of `SearchTokenizerTests` passed while the index held other bytes.
final class SearchTokenizerRevision7Tests: XCTestCase {
    /// The UTF-8 bytes of each token of `text`.
    private func bytes(_ text: String) -> [[UInt8]] {
        SearchTokenizer.tokens(in: text).map { Array($0.text.utf8) }
    }

    /// The UTF-8 bytes of each of `texts`.
    private func bytes(of texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    /// The original bytes each token of `text` covers.
    private func covered(_ text: String) -> [[UInt8]] {
        let utf8 = Array(text.utf8)
        return SearchTokenizer.tokens(in: text).map { Array(utf8[$0.byteRange]) }
    }

    func testHalfWidthVoicedKanaAreTheFullWidthKana() {
        XCTAssertEqual(bytes("ｶﾞｲﾄﾞ"), bytes(of: ["\u{30AC}\u{30A4}", "\u{30A4}\u{30C9}"]))
        XCTAssertEqual(bytes("ｶﾞｲﾄﾞ"), bytes("ガイド"))
        XCTAssertEqual(bytes("ﾊﾟﾝ"), bytes(of: ["\u{30D1}\u{30F3}"]))
        XCTAssertEqual(bytes("ﾊﾟﾝ"), bytes("パン"))
        XCTAssertEqual(bytes("ｶﾞｷﾞ"), bytes(of: ["\u{30AC}\u{30AE}"]))
        XCTAssertEqual(bytes("ｳﾞ"), bytes(of: ["\u{30F4}"]))
        // A half-width kana with a full-width combining mark, and a decomposed full-width one.
        XCTAssertEqual(bytes("ｶ\u{3099}ｲ"), bytes("ガイ"))
        XCTAssertEqual(bytes("カ\u{3099}イ"), bytes("ガイ"))
        // Byte ranges cover the original text, voicing marks included.
        XCTAssertEqual(covered("ｶﾞｲﾄﾞ x"), bytes(of: ["ｶﾞｲ", "ｲﾄﾞ", "x"]))
        XCTAssertEqual(covered("ﾊﾟﾝ"), bytes(of: ["ﾊﾟﾝ"]))
    }

    func testDecomposedHangulIsCutAsItsSyllables() {
        let composed = "한국어 문서 검색"
        let decomposed = composed.decomposedStringWithCanonicalMapping
        XCTAssertNotEqual(Array(composed.utf8), Array(decomposed.utf8))
        XCTAssertEqual(bytes(decomposed), bytes(composed))
        XCTAssertEqual(bytes(decomposed), bytes(of: ["한국", "국어", "문서", "검색"]))
        // Byte ranges cover the decomposed original, every jamo included.
        let words = ["한국", "국어", "문서", "검색"].map { $0.decomposedStringWithCanonicalMapping }
        XCTAssertEqual(covered(decomposed + " ok"), bytes(of: words + ["ok"]))
        // A lone syllable, and a syllable with a conjoining final after it (`가` + `ᆫ` is `간`).
        XCTAssertEqual(bytes("\u{1112}\u{1161}\u{11AB}"), bytes(of: ["한"]))
        XCTAssertEqual(bytes("\u{AC00}\u{11AB}\u{AD6D}"), bytes("간국"))
        XCTAssertEqual(covered("\u{AC00}\u{11AB}\u{AD6D}"), bytes(of: ["\u{AC00}\u{11AB}\u{AD6D}"]))
    }

    func testLoneJamoStayAsTheyAre() {
        // A leading consonant alone is a character of its own.
        XCTAssertEqual(bytes("\u{1112}"), bytes(of: ["\u{1112}"]))
        XCTAssertEqual(bytes("\u{1112}\u{1100}"), bytes(of: ["\u{1112}\u{1100}"]))
        // A vowel after something other than a leading consonant or syllable does not join it.
        XCTAssertEqual(bytes("中\u{1161}"), bytes(of: ["中\u{1161}"]))
        XCTAssertEqual(covered("中\u{1161}文"), bytes(of: ["中\u{1161}", "\u{1161}文"]))
        XCTAssertEqual(bytes("\u{1161}\u{11AB}"), bytes(of: ["\u{1161}\u{11AB}"]))
    }
}
