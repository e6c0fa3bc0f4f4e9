// The tokenizer before the fast path (commit dd3d0af) with the word rules of tokenizer revision
// 2 added, kept as the reference the equivalence tests compare the production tokenizer with.
// Do not optimise.

@testable import Cipherdex
@testable import CipherdexStore

/// How the tokenizer treats one Unicode scalar.
enum ReferenceScalarClass: Equatable {
    /// Ends a token (spaces, punctuation, symbols, emoji, invalid bytes).
    case separator
    /// Part of a word: letters and numbers of scripts that separate words.
    case letter
    /// A combining mark: belongs to the character before it.
    case mark
    /// A format character (general category Cf: ZWNJ, ZWJ, soft hyphen, the bidi marks LRM, RLM
    /// and ALM, word joiner, BOM…): invisible, so ignored wherever it is — it neither ends a word
    /// nor adds to it. (The zero-width space separates, and so does the end of a bidi embedding or
    /// isolate directly followed by the start of another: `directionalBoundary`.)
    case ignorable
    /// A character of a script written without spaces between words, cut into overlapping
    /// bigrams: Han, Hiragana, Katakana, Hangul, Bopomofo, Thai, Lao, Khmer, Myanmar.
    case cjk

    /// The class of `scalar`.
    static func of(_ scalar: Unicode.Scalar) -> ReferenceScalarClass {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .letter
            default: return .separator
            }
        }
        switch value {
        case 0x3099, 0x309A, 0xFF9E, 0xFF9F: return .mark  // (half-width) kana voicing marks
        // The zero-width space is a word break. (The bidi embeddings, overrides and isolates are
        // ignored like other format characters, but where one run ends and the next starts:
        // `directionalBoundary`.)
        case 0x200B: return .separator
        default: break
        }
        if isCJK(value) { return .cjk }
        switch scalar.properties.generalCategory {
        case .format:
            return .ignorable
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return .mark
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return .letter
        default:
            return .separator
        }
    }

    /// Whether `value` ends a bidi embedding or override (PDF, U+202C) or an isolate (PDI, U+2069).
    static func closesDirection(_ value: UInt32) -> Bool { value == 0x202C || value == 0x2069 }

    /// Whether `value` starts a bidi embedding or override (LRE, RLE, LRO, RLO) or an isolate
    /// (LRI, RLI, FSI).
    static func opensDirection(_ value: UInt32) -> Bool {
        switch value {
        case 0x202A, 0x202B, 0x202D, 0x202E, 0x2066...0x2068: return true
        default: return false
        }
    }

    /// Whether the scalars at `index` in `input` (decoded by `decode`) are the end of one bidi run
    /// directly followed by the start of another (`⁩⁨`, `\u{202C}\u{202B}`, any number of ends
    /// first): a word break, as extraction wraps each right-to-left word in its own run
    /// (`\u{2068}לחיוב\u{2069}\u{2068}פעולות\u{2069}`). A run's end or start alone is ignored
    /// like other format characters, so poppler's `(\u{202A}15\u{202C}ב)` is the word `15ב` a
    /// reader sees.
    static func directionalBoundary(at index: Int, count: Int, decode: (Int) -> (Unicode.Scalar?, Int)) -> Bool {
        var index = index
        var closed = false
        while index < count {
            let (scalar, length) = decode(index)
            guard let scalar else { return false }
            if closesDirection(scalar.value) {
                closed = true
                index += length
                continue
            }
            return closed && opensDirection(scalar.value)
        }
        return false
    }

    /// Whether a bigram run may continue across white space after (and before) `value`: true for
    /// the scripts that never put spaces between words (extraction inserts spaces and line
    /// breaks between their characters), false for Hangul, which does.
    static func joinsAcrossSpace(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x11FF, 0x3131...0x318E, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xD7B0...0xD7FF, 0xFFA0...0xFFDC:
            return false
        default:
            return true
        }
    }

    /// Whether `value` is white space a bigram run may continue across (see `joinsAcrossSpace`).
    static func isRunSpace(_ value: UInt32) -> Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0xA0, 0x200B, 0x3000: return true
        default: return false
        }
    }

    /// Whether `value` is in a block the tokenizer bigrams.
    static func isCJK(_ value: UInt32) -> Bool {
        switch value {
        case 0x0E01...0x0E3A,  // Thai letters and vowel signs
            0x0E40...0x0E4E,  // Thai vowels, tone marks
            0x0E50...0x0E59,  // Thai digits
            0x0E81...0x0EDF,  // Lao
            0x1000...0x109F,  // Myanmar
            0x1780...0x17DD,  // Khmer letters and signs
            0x17E0...0x17E9,  // Khmer digits
            0x19E0...0x19FF,  // Khmer symbols
            0xA9E0...0xA9FE,  // Myanmar Extended-B
            0xAA60...0xAA7F,  // Myanmar Extended-A
            0x1100...0x11FF,  // Hangul Jamo
            0x3005...0x3007,  // 々 〆 〇
            0x2F00...0x2FD5,  // Kangxi radicals (NFKC: the ideographs; some fonts map to them)
            0x303B,  // 〻
            0x3041...0x3096,  // Hiragana
            0x309D...0x309F,  // Hiragana iteration marks, ゟ
            0x30A1...0x30FA,  // Katakana
            0x30FC...0x30FF,  // ー, iteration marks, ヿ
            0x3105...0x312F,  // Bopomofo
            0x3131...0x318E,  // Hangul Compatibility Jamo
            0x31A0...0x31BF,  // Bopomofo Extended
            0x31F0...0x31FF,  // Katakana Phonetic Extensions
            0x3400...0x4DBF,  // CJK Extension A
            0x4E00...0x9FFF,  // CJK Unified Ideographs
            0xA960...0xA97F,  // Hangul Jamo Extended-A
            0xAC00...0xD7A3,  // Hangul Syllables
            0xD7B0...0xD7FF,  // Hangul Jamo Extended-B
            0xF900...0xFAFF,  // CJK Compatibility Ideographs
            0xFF66...0xFF9D,  // Half-width Katakana
            0xFFA0...0xFFDC,  // Half-width Hangul
            0x1B000...0x1B16F,  // Kana Supplement / Extended-A
            0x20000...0x2FA1F,  // CJK Extensions B-F, Compatibility Supplement
            0x30000...0x323AF:  // CJK Extensions G-H
            return true
        default:
            return false
        }
    }
}
