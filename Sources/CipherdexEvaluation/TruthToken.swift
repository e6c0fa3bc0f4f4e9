/// One token of a page's truth text: a word of a spaced script, or a run of a substring script.
public struct TruthToken: Sendable {
    /// What came between the previous token and this one.
    public enum Gap: Sendable {
        /// Nothing: the first token of the page.
        case start
        /// Spaces or tabs only.
        case space
        /// Whitespace with a line break.
        case lineBreak
        /// One hyphen between two words, nothing else (`well-known`).
        case hyphen
        /// Anything else (punctuation, symbols, a different script's run).
        case other
    }

    /// Whether this is a word or a run of a substring script.
    public var isRun: Bool
    /// The script of the first letter.
    public var script: EvaluationScript
    /// The text as on the page (for a run: its letters, whitespace inside removed).
    public var text: String
    /// The folded form (`TruthFolding`), for words as UTF-8; for runs the folded letters.
    public var folded: [UInt8]
    /// For runs: the folded letters one by one.
    public var runScalars: [Unicode.Scalar] = []
    /// For runs: the letter indices in `runScalars` before which whitespace was removed.
    public var runBreaks: [Int] = []
    /// What separated it from the previous token.
    public var gap: Gap
    /// Whether an apostrophe (' or ’) touches the word on either side.
    public var touchesApostrophe = false
    /// Whether format characters (soft hyphen, zero-width joiners…) were dropped inside it.
    public var hadFormatCharacter = false
    /// Whether the word goes on across a soft hyphen at a line end (`desoxy\u{AD}⏎corticostérone`).
    public var joinedAcrossSoftHyphen = false
}

/// Cuts truth text into `TruthToken`s.
///
/// A word is a maximal run of letters, digits and combining marks (general categories L, N, M)
/// of spaced scripts; a run is a maximal sequence of letters of substring scripts in which
/// whitespace is skipped (a line break inside a Chinese sentence does not end it), except next
/// to Hangul, which is written with spaces between words. Format
/// characters (general category Cf: soft hyphens, zero-width joiners) are dropped; a soft hyphen
/// followed by whitespace holding a line break and a letter of a spaced script joins the word
/// across the break, as a reader reads a word hyphenated at a line end. Everything else
/// separates.
public struct TruthTokenizer: Sendable {
    private var foldCache: [String: [UInt8]] = [:]

    /// Creates a tokenizer with an empty fold cache.
    public init() {}

    /// The folded UTF-8 of a word, cached.
    public mutating func foldedWord(_ word: String) -> [UInt8] {
        if let known = foldCache[word] { return known }
        let folded = Array(TruthFolding.foldWord(word).utf8)
        foldCache[word] = folded
        return folded
    }

    /// Whether the scalar is part of a word or run. Kangxi radicals (symbols) are, as the
    /// ideographs NFKC makes of them: fonts of some Japanese and Chinese PDFs map glyphs of `日`
    /// or `本` to `⽇`, `⽊`, which a reader takes for the ideographs.
    static func isLetterLike(_ scalar: Unicode.Scalar) -> Bool {
        if (0x2F00...0x2FD5).contains(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Whether the scalar is a combining mark.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// The tokens of `text`.
    public mutating func tokens(of text: String) -> [TruthToken] {
        var tokens: [TruthToken] = []
        var current = String.UnicodeScalarView()
        var currentIsRun = false
        var breaks: [Int] = []
        var runLetters = 0
        var gap = String.UnicodeScalarView()
        var gapBeforeCurrent = String.UnicodeScalarView()
        var pendingWhitespace = false
        var sawFormat = false
        // A soft hyphen ended the current word; whitespace after it is held until a letter
        // says whether the word goes on across a line break.
        var softHyphenAtEnd = false
        var held = String.UnicodeScalarView()
        var joined = false

        func classify(_ gap: String.UnicodeScalarView, first: Bool, betweenWords: Bool) -> TruthToken.Gap {
            if first { return .start }
            if gap.isEmpty { return .other }
            if betweenWords, gap.count == 1, gap.first == "-" || gap.first == "\u{2010}" { return .hyphen }
            var sawBreak = false
            for scalar in gap {
                guard scalar.properties.isWhitespace else { return .other }
                if scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" { sawBreak = true }
            }
            return sawBreak ? .lineBreak : .space
        }
        func close(next: Unicode.Scalar) {
            guard !current.isEmpty else { return }
            let string = String(current)
            let previousIsWord = tokens.last.map { !$0.isRun } ?? false
            let kind = classify(gapBeforeCurrent, first: tokens.isEmpty, betweenWords: previousIsWord && !currentIsRun)
            let script = current.lazy.map(EvaluationScript.of).first { $0 != .other } ?? .other
            var token = TruthToken(
                isRun: currentIsRun, script: script, text: string, folded: [], gap: kind)
            if currentIsRun {
                let folded = TruthFolding.foldRun(string)
                token.folded = Array(folded.utf8)
                token.runScalars = Array(folded.unicodeScalars)
                // NFKC can merge letters (half-width voiced kana): keep breaks in range.
                token.runBreaks = breaks.filter { $0 < token.runScalars.count }
                token.script = Self.runScript(token.runScalars)
            } else {
                token.folded = foldedWord(string)
                token.touchesApostrophe =
                    Self.isApostrophe(next) || gapBeforeCurrent.last.map(Self.isApostrophe) == true
            }
            token.hadFormatCharacter = sawFormat
            token.joinedAcrossSoftHyphen = joined
            sawFormat = false
            joined = false
            softHyphenAtEnd = false
            tokens.append(token)
            current = String.UnicodeScalarView()
            breaks = []
            runLetters = 0
            pendingWhitespace = false
        }

        /// Ends the held whitespace: the current word is closed and the whitespace is the gap.
        func release() {
            guard let first = held.first else { return }
            let whitespace = held
            held = String.UnicodeScalarView()
            close(next: first)
            gap = whitespace
        }
        for scalar in text.unicodeScalars {
            // A reader does not see format characters: they neither join nor split.
            if scalar.properties.generalCategory == .format {
                if !current.isEmpty { sawFormat = true }
                if !current.isEmpty && !currentIsRun && held.isEmpty && scalar == "\u{AD}" { softHyphenAtEnd = true }
                continue
            }
            if !held.isEmpty {
                if scalar.properties.isWhitespace {
                    held.append(scalar)
                    continue
                }
                let lineBreak = held.contains { Self.isLineBreak($0) }
                if lineBreak && Self.isLetterLike(scalar) && !Self.isMark(scalar)
                    && !EvaluationScript.of(scalar).isSubstringScript
                {
                    held = String.UnicodeScalarView()
                    softHyphenAtEnd = false
                    joined = true
                    current.append(scalar)
                    continue
                }
                release()
            }
            if Self.isLetterLike(scalar) {
                softHyphenAtEnd = false
                let mark = Self.isMark(scalar)
                let substring = EvaluationScript.of(scalar).isSubstringScript
                if mark && !current.isEmpty && !pendingWhitespace {
                    current.append(scalar)
                    continue
                }
                // Hangul is written with spaces between words: the store's run stops at white
                // space before or after a Hangul letter, and so does the truth's.
                let hangulAcrossSpace =
                    pendingWhitespace && !mark
                    && (EvaluationScript.of(scalar) == .hangul || current.last.map(EvaluationScript.of) == .hangul)
                if !current.isEmpty && currentIsRun && (substring || mark) && !hangulAcrossSpace {
                    if pendingWhitespace { breaks.append(runLetters) }
                    pendingWhitespace = false
                    current.append(scalar)
                    runLetters += 1
                    gap = String.UnicodeScalarView()
                    continue
                }
                if !current.isEmpty && !currentIsRun && !substring && !pendingWhitespace {
                    current.append(scalar)
                    continue
                }
                close(next: scalar)
                gapBeforeCurrent = gap
                gap = String.UnicodeScalarView()
                current.append(scalar)
                currentIsRun = substring
                runLetters = 1
                continue
            }
            // A separator.
            if softHyphenAtEnd && !current.isEmpty && !currentIsRun && scalar.properties.isWhitespace {
                held.append(scalar)
                continue
            }
            softHyphenAtEnd = false
            if !current.isEmpty && currentIsRun && scalar.properties.isWhitespace {
                pendingWhitespace = true
                gap.append(scalar)
                continue
            }
            if !current.isEmpty {
                let whitespaceSoFar = gap
                close(next: scalar)
                gap = whitespaceSoFar
            }
            gap.append(scalar)
        }
        release()
        close(next: " ")
        return tokens
    }

    /// Whether the scalar breaks a line.
    static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// The script a run reports: kana if it has any (Japanese mixes kana and Han), else that of
    /// its first letter.
    static func runScript(_ scalars: [Unicode.Scalar]) -> EvaluationScript {
        var first = EvaluationScript.other
        for scalar in scalars {
            let script = EvaluationScript.of(scalar)
            if script == .kana { return .kana }
            if first == .other { first = script }
        }
        return first
    }

    static func isApostrophe(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "'" || scalar == "\u{2019}" || scalar == "\u{02BC}"
    }
}
