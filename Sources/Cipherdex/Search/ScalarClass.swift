/// How the tokenizer treats one Unicode scalar.
enum ScalarClass: Equatable {
    /// Ends a token (spaces, punctuation, symbols, emoji, invalid bytes).
    case separator
    /// Part of a word: letters and numbers of scripts that separate words.
    case letter
    /// A combining mark: belongs to the character before it.
    case mark
    /// An apostrophe: joins two letters, otherwise separates.
    case joiner
    /// A CJK character: Han, Hiragana, Katakana, Hangul, Bopomofo.
    case cjk

    /// The class of `scalar`. Out of line: the tokenizer classifies ASCII itself, and inlining
    /// the Unicode property lookup would slow its ASCII loops.
    @inline(never)
    static func of(_ scalar: Unicode.Scalar) -> ScalarClass {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .letter
            case 0x27: return .joiner
            default: return .separator
            }
        }
        switch value {
        case 0x3099, 0x309A, 0xFF9E, 0xFF9F: return .mark // (half-width) kana voicing marks
        case 0x2019, 0x02BC: return .joiner
        default: break
        }
        if isCJK(value) { return .cjk }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return .mark
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber:
            return .letter
        default:
            return .separator
        }
    }

    /// Whether `value` is in a CJK block the tokenizer bigrams.
    static func isCJK(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x11FF,   // Hangul Jamo
             0x3005...0x3007,   // 々 〆 〇
             0x303B,            // 〻
             0x3041...0x3096,   // Hiragana
             0x309D...0x309F,   // Hiragana iteration marks, ゟ
             0x30A1...0x30FA,   // Katakana
             0x30FC...0x30FF,   // ー, iteration marks, ヿ
             0x3105...0x312F,   // Bopomofo
             0x3131...0x318E,   // Hangul Compatibility Jamo
             0x31A0...0x31BF,   // Bopomofo Extended
             0x31F0...0x31FF,   // Katakana Phonetic Extensions
             0x3400...0x4DBF,   // CJK Extension A
             0x4E00...0x9FFF,   // CJK Unified Ideographs
             0xA960...0xA97F,   // Hangul Jamo Extended-A
             0xAC00...0xD7A3,   // Hangul Syllables
             0xD7B0...0xD7FF,   // Hangul Jamo Extended-B
             0xF900...0xFAFF,   // CJK Compatibility Ideographs
             0xFF66...0xFF9D,   // Half-width Katakana
             0xFFA0...0xFFDC,   // Half-width Hangul
             0x1B000...0x1B16F, // Kana Supplement / Extended-A
             0x20000...0x2FA1F, // CJK Extensions B-F, Compatibility Supplement
             0x30000...0x323AF: // CJK Extensions G-H
            return true
        default:
            return false
        }
    }
}
