import Cipherdex
import CipherdexPDFWriter

/// Generates the evaluation's queries from the truth, deterministically for a seed.
///
/// Per kind and script, candidates are the distinct folded forms found in the truth (so rare
/// words weigh as much as common ones); `perCell` of them are drawn with SplitMix64.
public struct QueryGenerator {
    /// The truth to draw from.
    public let index: TruthIndex
    /// The search options the queries run with (decide prefix or whole-word truth rules).
    public let options: SearchOptions

    /// A generator over `index` for searches with `options`.
    public init(index: TruthIndex, options: SearchOptions) {
        self.index = index
        self.options = options
    }

    /// Up to `perCell` queries of every kind for every script present, and `perCell` negative
    /// controls.
    public func queries(perCell: Int, seed: UInt64) -> [EvaluationQuery] {
        var candidates: [Key: [String: EvaluationQuery]] = [:]
        var tokenizer = TruthTokenizer()
        func offer(_ kind: EvaluationQuery.Kind, _ script: EvaluationScript, _ text: String, _ rule: TruthIndex.Rule) {
            let key = Key(kind: kind, script: script)
            if candidates[key]?[text] == nil {
                candidates[key, default: [:]][text] = EvaluationQuery(
                    kind: kind, script: script, text: text, rule: rule)
            }
        }
        let wordPrefix = !options.exactWordsOnly
        let phrasePrefix = !options.exactPhrasesOnly
        for page in index.tokens {
            for (position, token) in page.enumerated() {
                if token.isRun {
                    offerSubstrings(of: token, offer)
                    offerCharacters(of: token, offer)
                    continue
                }
                guard Self.isQueryWord(token) else { continue }
                let script = token.script
                offer(.word, script, token.text, .words([token.folded], prefix: wordPrefix))
                if token.joinedAcrossSoftHyphen {
                    offer(.softHyphenWord, script, token.text, .words([token.folded], prefix: wordPrefix))
                }
                let letters = Self.letterBoundaries(token.text)
                if letters.count >= 7 {
                    let length = 3 + Int(token.text.unicodeScalars.reduce(UInt32(0)) { $0 &+ $1.value } % 3)
                    let cut = String(token.text.unicodeScalars.prefix(letters[length]))
                    offer(.prefix, script, cut + "*", .words([tokenizer.foldedWord(cut)], prefix: true))
                }
                if TruthFolding.hasDiacritic(token.text) {
                    let stripped = TruthFolding.stripDiacritics(token.text)
                    if stripped != token.text {
                        offer(
                            .diacriticsStripped, script, stripped,
                            .words([tokenizer.foldedWord(stripped)], prefix: wordPrefix))
                    }
                }
                if script.isCased && token.text.uppercased() != token.text {
                    let upper = token.text.uppercased()
                    offer(.upperCase, script, upper, .words([tokenizer.foldedWord(upper)], prefix: wordPrefix))
                }
                guard position + 1 < page.count else { continue }
                let next = page[position + 1]
                guard !next.isRun, Self.isQueryWord(next) else { continue }
                let words = [token.folded, next.folded]
                switch next.gap {
                case .space:
                    offer(.phrase, script, "\"\(token.text) \(next.text)\"", .words(words, prefix: phrasePrefix))
                case .lineBreak:
                    offer(
                        .phraseAcrossLines, script, "\"\(token.text) \(next.text)\"",
                        .words(words, prefix: phrasePrefix))
                case .hyphen:
                    offer(.hyphenated, script, "\(token.text)-\(next.text)", .words(words, prefix: wordPrefix))
                default: break
                }
            }
        }
        var generator = SampleGenerator(seed: seed)
        var result: [EvaluationQuery] = []
        // The kinds added after the negative controls are drawn after them, so the older kinds
        // keep the queries (and figures) they had for a seed.
        let keys = candidates.keys.sorted()
        let older = keys.filter { $0.kind < .negative }
        for key in older + [nil] + keys.filter({ $0.kind > .negative }) {
            guard let key else {
                result += negatives(count: perCell, generator: &generator)
                continue
            }
            var pool = candidates[key]!.keys.sorted()
            pool.shuffle(using: &generator)
            result += pool.prefix(perCell).map { candidates[key]![$0]! }
        }
        return result
    }

    /// Single letters of a run (a query of one character), and apart the last letter of a run
    /// of two or more, which its pairs do not start.
    private func offerCharacters(
        of token: TruthToken, _ offer: (EvaluationQuery.Kind, EvaluationScript, String, TruthIndex.Rule) -> Void
    ) {
        let letters = token.runScalars
        for (index, letter) in letters.enumerated() {
            let script = EvaluationScript.of(letter)
            guard script.isSubstringScript, letter.properties.generalCategory != .nonspacingMark,
                letter.properties.generalCategory != .spacingMark
            else { continue }
            let text = String(letter)
            let kind: EvaluationQuery.Kind = index == letters.count - 1 && index > 0 ? .runLastCharacter : .runCharacter
            offer(kind, script, text, .substring(Array(text.utf8)))
        }
    }

    /// Substrings of 2–4 letters of a run, within a line and across a removed line break.
    private func offerSubstrings(
        of token: TruthToken, _ offer: (EvaluationQuery.Kind, EvaluationScript, String, TruthIndex.Rule) -> Void
    ) {
        let letters = token.runScalars
        guard letters.count >= 2 else { return }
        let length = min(letters.count, 2 + letters.count % 3)
        var starts = Set<Int>()
        // Every few letters, one substring; and one around each break.
        for start in stride(from: 0, to: letters.count - length + 1, by: 3) { starts.insert(start) }
        for breakIndex in token.runBreaks where breakIndex >= 1 {
            starts.insert(max(0, min(letters.count - length, breakIndex - length / 2)))
        }
        for start in starts.sorted() {
            let range = start..<start + length
            let crosses = token.runBreaks.contains { $0 > range.lowerBound && $0 < range.upperBound }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: letters[range])
            let text = String(view)
            let script = TruthTokenizer.runScript(Array(letters[range]))
            guard script.isSubstringScript, !Self.splitsSaraAm(letters, range) else { continue }
            offer(crosses ? .substringAcrossLines : .substring, script, text, .substring(Array(text.utf8)))
        }
    }

    /// Letter strings found in no truth word (not even as a prefix).
    private func negatives(count: Int, generator: inout SampleGenerator) -> [EvaluationQuery] {
        let letters = Array("bcdfghjklmnpqrstvwxz")
        var result: [EvaluationQuery] = []
        var attempts = 0
        while result.count < count && attempts < count * 20 {
            attempts += 1
            let length = 6 + Int(generator.next() % 4)
            let word = "q" + String((0..<length).map { _ in letters[Int(generator.next() % UInt64(letters.count))] })
            guard !index.hasWord(beginning: Array(word.utf8)) else { continue }
            result.append(
                EvaluationQuery(
                    kind: .negative, script: .latin, text: word, rule: .words([Array(word.utf8)], prefix: true)))
        }
        return result
    }

    /// Whether a truth word makes a query: two letters or more, not only digits, not `OR`, not
    /// starting with a combining mark (a mark with no letter before it: `֘B` of a font's
    /// character table, which no reader types).
    static func isQueryWord(_ token: TruthToken) -> Bool {
        guard !token.isRun, token.script != .other else { return false }
        let scalars = token.text.unicodeScalars
        guard scalars.count >= 2, scalars.count <= 40, let first = scalars.first, !TruthTokenizer.isMark(first)
        else { return false }
        return token.folded != Array("or".utf8)
    }

    /// Whether `range` of a run's letters cuts a Thai or Lao SARA AM in two: the truth's folding
    /// (NFKC) writes `ำ` as `ํา` (and `ຳ` as `ໍາ`), and a substring starting at its `า` or ending
    /// at its `ํ` is half a vowel no reader types.
    static func splitsSaraAm(_ letters: [Unicode.Scalar], _ range: Range<Int>) -> Bool {
        func isSaraAm(_ index: Int) -> Bool {
            guard index >= 1, index < letters.count else { return false }
            let pair = (letters[index - 1].value, letters[index].value)
            return pair == (0x0E4D, 0x0E32) || pair == (0x0ECD, 0x0EB2)
        }
        return isSaraAm(range.lowerBound) || isSaraAm(range.upperBound)
    }

    /// Scalar offsets at which each letter (with its marks) ends: `[0, end of 1st, end of 2nd…]`.
    static func letterBoundaries(_ word: String) -> [Int] {
        var result = [0]
        var offset = 0
        for scalar in word.unicodeScalars {
            if TruthTokenizer.isMark(scalar), offset > 0 {
                offset += 1
                result[result.count - 1] = offset
                continue
            }
            offset += 1
            result.append(offset)
        }
        return result
    }

    /// A cell of the report.
    struct Key: Hashable, Comparable {
        var kind: EvaluationQuery.Kind
        var script: EvaluationScript
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.kind, lhs.script) < (rhs.kind, rhs.script) }
    }
}
