/// One generated query, what the library is asked and what the truth says it must find.
public struct EvaluationQuery: Sendable {
    /// What the query tests.
    public enum Kind: String, Sendable, CaseIterable, Codable, Comparable {
        case word = "word"
        case prefix = "prefix (abc*)"
        case phrase = "phrase, same line"
        case phraseAcrossLines = "phrase across a line break"
        case hyphenated = "hyphenated word"
        case diacriticsStripped = "diacritics stripped"
        case upperCase = "upper case"
        case substring = "run substring (2-4 letters)"
        case substringAcrossLines = "run substring across a line break"
        case negative = "negative control"
        // Drawn after the negative controls, so the kinds above keep their queries for a seed.
        case runCharacter = "run character (1 letter)"
        case runLastCharacter = "run character ending a run"
        case softHyphenWord = "word across a soft hyphen at a line end"

        /// Orders kinds as declared.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// What the query tests.
    public var kind: Kind
    /// The script of the word it was made from.
    public var script: EvaluationScript
    /// The query text given to `library.search`.
    public var text: String
    /// How the truth decides a page matches.
    public var rule: TruthIndex.Rule
}
