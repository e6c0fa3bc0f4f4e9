import Foundation
import Synchronization

/// Case folding and diacritic removal for the tokenizer, cached per scalar.
///
/// A letter is compatibility-decomposed (NFKD: `é` → `e` + U+0301, `ﬁ` → `fi`, `Ａ` → `A`),
/// lower-cased, stripped of diacritic marks (the combining diacritical blocks, Hebrew points and
/// Arabic harakat; marks of other scripts, such as Indic vowel signs, are kept) and mapped through
/// a few letters that do not decompose (`ß` → `ss`, `ø` → `o`, `æ` → `ae`, `ł` → `l`...).
/// CJK characters are only compatibility-composed (NFKC: half-width `ｶﾞ` → `ガ`), never
/// decomposed, so kana keep their voicing marks and Hangul syllables stay whole; a character
/// with attached scalars (marks, conjoining Hangul vowels and finals) is composed into one
/// where Unicode has one (`ｶﾞ` → `ガ`, `ᄒ ᅡ ᆫ` → `한`, tokenizer revision 7).
enum Folding {
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

    /// The folded UTF-8 of a letter or mark (empty for a diacritic). Non-ASCII folds are computed
    /// once and then returned from the cache (shared storage, no allocation); the tokenizer folds
    /// ASCII itself.
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

    /// Appends the folded UTF-8 of one CJK character without marks to `buffer`.
    static func appendFoldCJK(of scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        let value = scalar.value
        let found = cjkCache.withLock { cached -> Bool in
            guard let known = cached[value] else { return false }
            buffer.append(contentsOf: known)
            return true
        }
        if found { return }
        let folded = Array(String(scalar).precomposedStringWithCompatibilityMapping.utf8)
        cjkCache.withLock { $0[value] = folded }
        buffer.append(contentsOf: folded)
    }

    /// Appends the folded UTF-8 of one CJK character and the marks attached to it to `buffer`.
    static func appendFoldCJK(of scalars: [Unicode.Scalar], to buffer: inout [UInt8]) {
        if scalars.count == 1 { return appendFoldCJK(of: scalars[0], to: &buffer) }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        buffer.append(contentsOf: nfkc(String(text)).utf8)
    }

    /// NFKC of `text`, as its definition spells it: compatibility decomposition (NFKD), then
    /// canonical composition. Foundation's `precomposedStringWithCompatibilityMapping` on Linux
    /// does not compose what the compatibility mapping produces (`ｶﾞ`, U+FF76 U+FF9E, came back
    /// as `カ` U+30AB and the combining U+3099, never `ガ` U+30AC), so half-width voiced kana and
    /// full-width kana were different words (tokenizer revision 7).
    static func nfkc(_ text: String) -> String {
        text.decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping
    }

    /// The folded UTF-8 of one CJK character and the marks attached to it.
    static func foldCJK(_ scalars: [Unicode.Scalar]) -> [UInt8] {
        var folded: [UInt8] = []
        appendFoldCJK(of: scalars, to: &folded)
        return folded
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
