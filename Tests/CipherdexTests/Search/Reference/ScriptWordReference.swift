import Foundation

@testable import Cipherdex

/// A deliberately simple reading of which words the tokenizer must give for one script, written
/// from its documentation rather than its code (`SearchTokenizerScriptTests`): words are cut at
/// white space and punctuation only, scripts are told apart by Unicode block, and folding is
/// Foundation's (CoreFoundation's case, diacritic and width folding) plus the documented letters
/// that do not decompose. Only unambiguous words are judged: a run of one script's letters (and
/// combining marks) with white space, punctuation or symbols on both sides, no digits, no
/// apostrophe or invisible format character next to it, and a folded form of at most 128 bytes.
struct ScriptWordReference {
    /// The scripts compared.
    enum Script: String, CaseIterable, Sendable {
        case latin, greek, cyrillic, arabic, hebrew, han, kana

        /// Whether the script is cut into CJK bigrams rather than words.
        var isCJK: Bool { self == .han || self == .kana }
    }

    /// One token the tokenizer must give: its folded text, byte range and kind.
    struct Expected: Equatable, CustomStringConvertible {
        var text: String
        var range: Range<Int>
        var kind: SearchToken.Kind

        var description: String { "\(text) \(range) \(kind)" }
    }

    /// The script of a letter by Unicode block, or nil (digits, marks, everything else).
    static func script(of scalar: Unicode.Scalar) -> Script? {
        let value = scalar.value
        guard scalar.properties.isAlphabetic || (0x3400...0x9FFF).contains(value) else { return nil }
        switch value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF:
            return value == 0xD7 || value == 0xF7 ? nil : .latin
        case 0x370...0x3FF, 0x1F00...0x1FFF: return .greek
        case 0x400...0x52F: return .cyrillic
        case 0x5D0...0x5EA: return .hebrew
        case 0x620...0x64A, 0x66E...0x6D3, 0x6FA...0x6FF: return .arabic
        case 0x3400...0x4DBF, 0x4E00...0x9FFF: return .han
        case 0x3041...0x3096, 0x309D, 0x309E, 0x30A1...0x30FA, 0x30FC...0x30FE: return .kana
        default: return nil
        }
    }

    /// Whether `scalar` ends a word for this reference: white space, punctuation, symbols.
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .connectorPunctuation,
            .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
            .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }

    /// Apostrophes, which may join letters (`don't`): words next to one are not judged.
    static let apostrophes: Set<UInt32> = [0x27, 0x2019, 0x2BC, 0x60, 0xB4]

    /// Letters that do not decompose, and their documented search forms.
    static let undecomposed: [Character: String] = [
        "ß": "ss", "ẞ": "ss", "ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d",
        "ð": "d", "Ð": "d", "ł": "l", "Ł": "l", "ħ": "h", "Ħ": "h", "ı": "i", "þ": "th", "Þ": "th", "ŧ": "t",
        "Ŧ": "t", "ŀ": "l", "Ŀ": "l", "ĸ": "k", "ſ": "s", "ς": "σ",
    ]

    /// The search form of a word of `script`: folded by Foundation, undecomposed letters mapped,
    /// and for Arabic the tatweel (a stretch of the line) dropped.
    static func fold(_ word: String, script: Script) -> String {
        var mapped = ""
        for character in word { mapped += undecomposed[character] ?? String(character) }
        var folded = mapped.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        folded = folded.decomposedStringWithCompatibilityMapping
        var result = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark && scalar.value != 0x640 {
            result.append(scalar)
        }
        var text = ""
        for character in String(result).lowercased() { text += undecomposed[character] ?? String(character) }
        return text.precomposedStringWithCanonicalMapping
    }

    /// The tokens the tokenizer must give for the judged words of `script` in `text`.
    static func expectedTokens(in text: String, script: Script) -> [Expected] {
        script.isCJK ? expectedBigrams(in: text, script: script) : expectedWords(in: text, script: script)
    }

    /// White space, which a CJK run goes on across (extraction puts spaces and line breaks
    /// between the characters of unspaced scripts; ARCHITECTURE.md, tokenizer rules).
    static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }

    /// Whether `scalar`, next to a CJK run, certainly ends it: nothing, a separator, or a letter
    /// or digit of a script that is cut into words. (A mark, a format character or a letter of
    /// another unspaced script next to the run makes it ambiguous: not judged.)
    static func endsCJKRun(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return true }
        if isSeparator(scalar) { return true }
        if (0x30...0x39).contains(scalar.value) { return true }
        if let other = Self.script(of: scalar) { return !other.isCJK }
        return false
    }

    /// CJK runs: characters of Han or kana with only white space between them. `han` judges the
    /// runs of Han alone; `kana` the runs with at least one kana (Japanese mixes both in words).
    /// A run of one character is a unigram, a longer one overlapping bigrams whose ranges span
    /// the white space between their two characters; folding is NFKC.
    static func expectedBigrams(in text: String, script: Script) -> [Expected] {
        let scalars = Array(text.unicodeScalars)
        var offsets: [Int] = [0]
        for scalar in scalars { offsets.append(offsets.last! + String(scalar).utf8.count) }
        var expected: [Expected] = []
        var index = 0
        while index < scalars.count {
            guard let first = Self.script(of: scalars[index]), first.isCJK else {
                index += 1
                continue
            }
            var run = [index]
            var next = index + 1
            while next < scalars.count {
                var probe = next
                while probe < scalars.count && isWhiteSpace(scalars[probe]) { probe += 1 }
                guard probe < scalars.count, let kind = Self.script(of: scalars[probe]), kind.isCJK else { break }
                run.append(probe)
                next = probe + 1
            }
            defer { index = next }
            var before = run[0] - 1
            while before >= 0 && isWhiteSpace(scalars[before]) { before -= 1 }
            var after = run.last! + 1
            while after < scalars.count && isWhiteSpace(scalars[after]) { after += 1 }
            guard endsCJKRun(before >= 0 ? scalars[before] : nil),
                endsCJKRun(after < scalars.count ? scalars[after] : nil)
            else { continue }
            let scripts = Set(run.compactMap { Self.script(of: scalars[$0]) })
            guard script == .han ? scripts == [.han] : scripts.contains(.kana) else { continue }
            let folded = run.map { String(scalars[$0]).precomposedStringWithCompatibilityMapping }
            if run.count == 1 {
                expected.append(
                    Expected(text: folded[0], range: offsets[run[0]]..<offsets[run[0] + 1], kind: .cjkUnigram))
            } else {
                for pair in 0..<(run.count - 1) {
                    expected.append(
                        Expected(
                            text: folded[pair] + folded[pair + 1],
                            range: offsets[run[pair]]..<offsets[run[pair + 1] + 1],
                            kind: .cjkBigram))
                }
            }
        }
        return expected
    }

    /// The words of a script cut into words (everything but Han and kana).
    static func expectedWords(in text: String, script: Script) -> [Expected] {
        let scalars = Array(text.unicodeScalars)
        var offsets: [Int] = [0]
        for scalar in scalars { offsets.append(offsets.last! + String(scalar).utf8.count) }
        var expected: [Expected] = []
        var start = 0
        while start < scalars.count {
            guard !isSeparator(scalars[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < scalars.count && !isSeparator(scalars[end]) { end += 1 }
            defer { start = end }
            let run = Array(scalars[start..<end])
            let before = start > 0 ? scalars[start - 1] : nil
            let after = end < scalars.count ? scalars[end] : nil
            let touchesApostrophe = [before, after].contains { $0.map { apostrophes.contains($0.value) } ?? false }
            guard !touchesApostrophe, Self.script(of: run[0]) == script else { continue }
            // The second half of a word hyphenated at a line end with a soft hyphen belongs to
            // that word (tokenizer revision 4): not judged, like the first half.
            var previous = start - 1
            while previous >= 0 && isWhiteSpace(scalars[previous]) { previous -= 1 }
            guard previous < 0 || scalars[previous] != "\u{AD}" else { continue }
            // Both parts of a word hyphenated at a line end with a hyphen-minus belong to the
            // joined word (revision 6): not judged.
            if after == "-", end + 1 < scalars.count, ["\n", "\r"].contains(scalars[end + 1]) { continue }
            var back = start - 1
            while back >= 0 && (scalars[back] == " " || scalars[back] == "\t") { back -= 1 }
            if back >= 0, ["\n", "\r"].contains(scalars[back]) {
                if scalars[back] == "\n", back >= 1, scalars[back - 1] == "\r" { back -= 1 }
                if back >= 1, scalars[back - 1] == "-" { continue }
            }
            let pure = run.allSatisfy { scalar in
                Self.script(of: scalar) == script
                    || [.nonspacingMark, .spacingMark].contains(scalar.properties.generalCategory)
            }
            guard pure else { continue }
            var word = String.UnicodeScalarView()
            word.append(contentsOf: run)
            let folded = fold(String(word), script: script)
            guard !folded.isEmpty, folded.utf8.count <= SearchTokenizer.maximumTokenBytes else { continue }
            expected.append(Expected(text: folded, range: offsets[start]..<offsets[end], kind: .word))
        }
        return expected
    }
}
