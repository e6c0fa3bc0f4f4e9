// A verbatim copy of the tokenizer before the fast path (commit dd3d0af), kept as the
// reference the equivalence tests compare the production tokenizer with. Do not optimise.

import Foundation
import Synchronization

@testable import Cipherdex
@testable import CipherdexStore

/// Case folding and diacritic removal for the tokenizer, cached per scalar.
///
/// A letter is compatibility-decomposed (NFKD: `é` → `e` + U+0301, `ﬁ` → `fi`, `Ａ` → `A`),
/// lower-cased, stripped of diacritic marks (the combining diacritical blocks, Hebrew points and
/// Arabic harakat; marks of other scripts, such as Indic vowel signs, are kept) and mapped through
/// a few letters that do not decompose (`ß` → `ss`, `ø` → `o`, `æ` → `ae`, `ł` → `l`...).
/// CJK characters are only compatibility-composed (NFKC: half-width `ｶﾞ` → `ガ`), never
/// decomposed, so kana keep their voicing marks and Hangul syllables stay whole.
enum ReferenceFolding {
    /// Folded UTF-8 of non-ASCII letters and marks seen so far.
    private static let cache = Mutex<[UInt32: [UInt8]]>([:])
    /// Folded UTF-8 of single CJK characters seen so far.
    private static let cjkCache = Mutex<[UInt32: [UInt8]]>([:])

    /// Letters without a decomposition, and their search forms.
    private static let special: [UInt32: String] = [
        0x00DF: "ss", 0x1E9E: "ss", 0x00F8: "o", 0x00E6: "ae", 0x0153: "oe", 0x0111: "d", 0x00F0: "d",
        0x0142: "l", 0x0127: "h", 0x0131: "i", 0x00FE: "th", 0x0167: "t", 0x0140: "l", 0x0138: "k",
        0x017F: "s", 0x03C2: "σ", 0x0180: "b", 0x0268: "i", 0x0249: "j",
    ]

    /// The folded UTF-8 of a letter or mark (empty for a diacritic).
    static func fold(_ scalar: Unicode.Scalar) -> [UInt8] {
        let value = scalar.value
        if value < 0x80 {
            let byte = UInt8(value)
            return [(byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte]
        }
        if let known = cache.withLock({ $0[value] }) { return known }
        let folded = computeFold(scalar)
        cache.withLock { $0[value] = folded }
        return folded
    }

    /// The folded UTF-8 of one CJK character and the marks attached to it.
    static func foldCJK(_ scalars: [Unicode.Scalar]) -> [UInt8] {
        if scalars.count == 1 {
            let value = scalars[0].value
            if let known = cjkCache.withLock({ $0[value] }) { return known }
            let folded = Array(String(scalars[0]).precomposedStringWithCompatibilityMapping.utf8)
            cjkCache.withLock { $0[value] = folded }
            return folded
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        // Revision 7: NFKC as NFKD then NFC (Foundation's NFKC on Linux leaves `ｶﾞ` decomposed).
        return Array(String(text).decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping.utf8)
    }

    /// Decompose, lower-case, strip diacritics, map specials.
    private static func computeFold(_ scalar: Unicode.Scalar) -> [UInt8] {
        if isDiacritic(scalar.value) { return [] }
        let lowered = String(scalar).decomposedStringWithCompatibilityMapping.lowercased()
        var result = ""
        for piece in lowered.decomposedStringWithCompatibilityMapping.unicodeScalars where !isDiacritic(piece.value) {
            if let replacement = special[piece.value] {
                result += replacement
            } else {
                result.unicodeScalars.append(piece)
            }
        }
        return Array(result.utf8)
    }

    /// Whether `value` is a diacritic removed from words (and the Arabic tatweel U+0640, a
    /// stretch of the line between letters: `كتـــاب` is `كتاب`).
    static func isDiacritic(_ value: UInt32) -> Bool {
        switch value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
            0x0591...0x05BD, 0x05BF, 0x05C1...0x05C2, 0x05C4...0x05C5, 0x05C7,
            0x064B...0x065F, 0x0670, 0x0640:
            return true
        default:
            return false
        }
    }
}
