import Foundation

/// How the evaluation decides that two words are the same for a reader, independently of the
/// library's tokenizer: case-insensitive and diacritic-insensitive.
///
/// A word is compatibility-decomposed (NFKD), lower-cased, stripped of diacritics (the
/// combining diacritical blocks, Hebrew points, Arabic harakat; other scripts' vowel signs are
/// letters of the word and stay) and mapped through the letters a reader takes for their base
/// letters (`ß` = `ss`, `ø` = `o`, `æ` = `ae`, final `ς` = `σ`…). Runs of substring scripts
/// (Han, kana, Hangul, Thai…) are only compatibility-composed (NFKC: half-width kana become
/// full-width), so syllables and voiced kana stay whole.
public enum TruthFolding {
    /// Letters without a decomposition, and the letters a reader takes them for.
    static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "ø": "o", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d", "ł": "l", "ħ": "h",
        "ı": "i", "þ": "th", "ŧ": "t", "ŀ": "l", "ſ": "s", "ς": "σ",
    ]

    /// Whether `value` is a diacritic a reader ignores (and the Arabic tatweel U+0640, which only
    /// stretches the line between letters).
    public static func isDiacritic(_ value: UInt32) -> Bool {
        switch value {
        case 0x300...0x36F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
            0x591...0x5BD, 0x5BF, 0x5C1, 0x5C2, 0x5C4, 0x5C5, 0x5C7, 0x64B...0x65F, 0x670, 0x640:
            return true
        default:
            return false
        }
    }

    /// The folded form of a word of a spaced script.
    public static func foldWord(_ word: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in word.decomposedStringWithCompatibilityMapping.lowercased()
            .decomposedStringWithCompatibilityMapping
            .unicodeScalars where !isDiacritic(scalar.value)
        {
            if let replacement = special[scalar] {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The folded form of a run (or a substring of a run) of a substring script: NFKC as its
    /// definition spells it, compatibility decomposition then canonical composition (Foundation's
    /// `precomposedStringWithCompatibilityMapping` on Linux leaves `ｶﾞ` as `カ` and a combining
    /// mark, never `ガ`, and conjoining jamo uncomposed).
    public static func foldRun(_ run: String) -> String {
        run.decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping
    }

    /// Whether the word has a diacritic or a special letter that folding removes or maps.
    public static func hasDiacritic(_ word: String) -> Bool {
        word.unicodeScalars.contains { special[$0] != nil }
            || word.decomposedStringWithCanonicalMapping.unicodeScalars.contains { isDiacritic($0.value) }
    }

    /// `word` with its diacritics removed but its case kept (`Résumé` → `Resume`, `Straße` →
    /// `Strasse`), as a reader types it without accents.
    public static func stripDiacritics(_ word: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in word.decomposedStringWithCanonicalMapping.unicodeScalars where !isDiacritic(scalar.value) {
            if let replacement = special[scalar] {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result).precomposedStringWithCanonicalMapping
    }
}
