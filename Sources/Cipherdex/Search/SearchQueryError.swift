import Foundation

/// Why a search query could not be parsed. Positions count characters (grapheme clusters) of
/// the query as typed from 1, as the messages say: `"` alone is `unterminatedQuote(position: 1)`.
public enum SearchQueryError: Error, LocalizedError, Equatable, Sendable {
    /// The query is empty or only whitespace.
    case empty
    /// The query is longer than `limit` characters.
    case tooLong(length: Int, limit: Int)
    /// A `"` at `position` has no closing quote.
    case unterminatedQuote(position: Int)
    /// An `OR` (or a lone `-`) at `position` has nothing to combine on one side.
    case danglingOperator(position: Int)
    /// A `*` at `position` follows no word.
    case bareWildcard(position: Int)
    /// Every term is excluded: there is nothing to search for.
    case onlyExclusions
    /// An excluded term at `position` is an `OR` alternative, which full-text search cannot express.
    case exclusionInAlternative(position: Int)
    /// No term contains a letter or digit (only punctuation or symbols).
    case noSearchableTerms
    /// More than `limit` terms.
    case tooManyTerms(count: Int, limit: Int)
    /// A leading `*` (ends-with or inner match) at `position` on something other than one word
    /// of letters and digits (a phrase, hyphenated words, CJK text).
    case unsupportedWildcard(position: Int)
    /// The operator at `position` (`"`, a `-` before a term, a `*` at a word's start or end)
    /// carries a combining mark, which makes one character of the two: read as text, an
    /// exclusion became a word to find (review 27 diff audit 3), so it is refused.
    case markOnOperator(position: Int)

    /// A stable short name for the case.
    public var name: String {
        switch self {
        case .empty: return "empty"
        case .tooLong: return "tooLong"
        case .unterminatedQuote: return "unterminatedQuote"
        case .danglingOperator: return "danglingOperator"
        case .bareWildcard: return "bareWildcard"
        case .onlyExclusions: return "onlyExclusions"
        case .exclusionInAlternative: return "exclusionInAlternative"
        case .noSearchableTerms: return "noSearchableTerms"
        case .tooManyTerms: return "tooManyTerms"
        case .unsupportedWildcard: return "unsupportedWildcard"
        case .markOnOperator: return "markOnOperator"
        }
    }

    /// The character position the error refers to, when it has one.
    public var position: Int? {
        switch self {
        case .unterminatedQuote(let position), .danglingOperator(let position), .bareWildcard(let position),
            .exclusionInAlternative(let position), .unsupportedWildcard(let position), .markOnOperator(let position):
            return position
        default:
            return nil
        }
    }

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .empty: return "type something to search for"
        case .tooLong(let length, let limit): return "the search is too long (\(length) characters; at most \(limit))"
        case .unterminatedQuote(let position): return "the quote at character \(position) is not closed"
        case .danglingOperator(let position): return "the operator at character \(position) needs a term on each side"
        case .bareWildcard(let position): return "the * at character \(position) must follow a word"
        case .onlyExclusions: return "add at least one word to search for, not only words to exclude"
        case .exclusionInAlternative(let position):
            return "the excluded term at character \(position) cannot be part of an OR"
        case .noSearchableTerms: return "the search has no letters or digits to look for"
        case .tooManyTerms(let count, let limit): return "the search has too many terms (\(count); at most \(limit))"
        case .unsupportedWildcard(let position):
            return "the * at character \(position) can start only a single word of letters and digits"
        case .markOnOperator(let position):
            return "the operator at character \(position) carries a combining mark; remove the mark"
        }
    }
}
