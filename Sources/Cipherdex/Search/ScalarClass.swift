/// How the tokenizer treats one Unicode scalar.
enum ScalarClass: Equatable {
    /// Ends a token (spaces, punctuation, symbols, emoji, invalid bytes).
    case separator
    /// Part of a word: letters and numbers of scripts that separate words.
    case letter
    /// A combining mark: belongs to the character before it.
    case mark
    /// A format character (general category Cf: ZWNJ, ZWJ, soft hyphen, the bidi marks LRM, RLM
    /// and ALM, word joiner, BOM…): invisible, so ignored wherever it is — it neither ends a word
    /// nor adds to it. (The zero-width space separates, except inside a bigram run, which goes on
    /// across it as across a space (`isRunSpace`, revision 5); the end of a bidi embedding or
    /// isolate directly followed by the start of another separates too: `directionalBoundary`.)
    case ignorable
    /// A character of a script written without spaces between words, cut into overlapping
    /// bigrams: Han, Hiragana, Katakana, Hangul, Bopomofo, Thai, Lao, Khmer, Myanmar.
    case cjk

    /// The class of `scalar`. Out of line: the tokenizer classifies ASCII itself, and inlining
    /// the Unicode property lookup would slow its ASCII loops.
    @inline(never)
    static func of(_ scalar: Unicode.Scalar) -> ScalarClass {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .letter
            default: return .separator
            }
        }
        switch value {
        case 0x3099, 0x309A, 0xFF9E, 0xFF9F: return .mark  // (half-width) kana voicing marks
        // The zero-width space is a word break, and white space inside a bigram run
        // (`isRunSpace`). (The bidi embeddings, overrides and isolates are ignored like other
        // format characters, but where one run ends and the next starts: `directionalBoundary`.)
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

    /// Where a word hyphenated at a line end with a soft hyphen (U+00AD) goes on: the offset of
    /// the first scalar after the white space at `index`, when that white space holds a line
    /// break (LF, VT, FF, CR, NEL, U+2028, U+2029) and the scalar is a letter (not of a bigram
    /// script); nil otherwise (`co\u{AD} operate` stays two words, as on one line a reader sees
    /// the space). `desoxy\u{AD}⏎corticostérone` is one word (tokenizer revision 4).
    static func softHyphenResumption(
        after index: Int, count: Int, decode: (Int) -> (Unicode.Scalar?, Int)
    ) -> Int? {
        var index = index
        var sawBreak = false
        while index < count {
            let (scalar, length) = decode(index)
            guard let scalar else { return nil }
            switch scalar.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029:
                sawBreak = true
            case 0x09, 0x20, 0xA0:
                break
            default:
                return sawBreak && of(scalar) == .letter ? index : nil
            }
            index += length
        }
        return nil
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

    /// Whether `value` is white space a bigram run may continue across (see `joinsAcrossSpace`):
    /// spaces, line breaks, NBSP, the ideographic space and the zero-width space, with which
    /// Thai, Lao, Khmer and Myanmar text marks word breaks a reader does not see (revision 5:
    /// `ออก⟨ZWSP⟩แบบ` is the run `ออกแบบ`, as `ออก แบบ` is; between Latin letters or Hangul
    /// syllables it still separates).
    static func isRunSpace(_ value: UInt32) -> Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0xA0, 0x200B, 0x3000: return true
        default: return false
        }
    }

    /// The AM vowel that `first` then `second` spell decomposed: Thai SARA AM (U+0E33) for
    /// NIKHAHIT U+0E4D + SARA AA U+0E32, Lao AM (U+0EB3) for NIGGAHITA U+0ECD + AA U+0EB2; else
    /// nil. A bigram run reads such a pair as that one character (revision 5), so `กำ` and `กํา`
    /// (NFKD of the former, common in extracted text) are cut alike; the folded text is the same
    /// either way (NFKC of U+0E33 is U+0E4D U+0E32).
    static func composedAM(_ first: UInt32, _ second: UInt32) -> Unicode.Scalar? {
        switch (first, second) {
        case (0x0E4D, 0x0E32): return "\u{0E33}"
        case (0x0ECD, 0x0EB2): return "\u{0EB3}"
        default: return nil
        }
    }

    /// Whether `value` is a conjoining Hangul vowel or final consonant (U+1160–U+11FF, Jamo
    /// Extended-B U+D7B0–U+D7FF), as decomposed (NFD) Hangul spells a syllable after its leading
    /// consonant (macOS file names, some PDFs). In a bigram run it belongs to the leading
    /// consonant or syllable before it, as a mark does (revision 7), so `한` spelt `ᄒ ᅡ ᆫ` is one
    /// character, folded (NFKC) to the syllable; elsewhere it is a character of its own.
    static func isHangulTrailing(_ value: UInt32) -> Bool {
        switch value {
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: return true
        default: return false
        }
    }

    /// Whether `value` is a Hangul leading consonant (U+1100–U+115F, Jamo Extended-A
    /// U+A960–U+A97F) or syllable, which conjoining vowels and finals after it join
    /// (`isHangulTrailing`).
    static func isHangulBase(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0xA960...0xA97F, 0xAC00...0xD7A3: return true
        default: return false
        }
    }

    /// Whether `value` may start a decomposed AM (`composedAM`).
    @inline(__always)
    static func isNikhahit(_ value: UInt32) -> Bool { value == 0x0E4D || value == 0x0ECD }

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
