/// A `SearchQuery` compiled for an FTS4 table: MATCH expressions made only of quoted tokens.
///
/// FTS3/4's standard query syntax (SQLCipher 3.4.1 has no FTS3_PARENTHESIS) can negate only a
/// bare word: a `-` before a quoted phrase is silently ignored, turning an exclusion into a
/// requirement. So exclusions are a second MATCH expression (their terms joined by `OR`) used in
/// a `NOT IN` subquery; `condition(table:)` builds that SQL.
///
/// The library's own search compiles ends-with and inner matches and one-character CJK terms as
/// patterns (`"*ology"`, `"*装*"`: a `*` before a token), which its own index reader reads and
/// which it spells out for FTS4 when FTS4 runs the query; `SearchQuery.compiled(stemming:)` never
/// writes them.
public struct CompiledSearchQuery: Equatable, Sendable {
    /// What a row must match: clauses joined by spaces (AND), alternatives by `OR`.
    public var match: String
    /// What a row must not match (any of the exclusions), or nil without exclusions.
    public var exclusion: String?

    /// Creates a compiled query.
    public init(match: String, exclusion: String? = nil) {
        self.match = match
        self.exclusion = exclusion
    }

    /// An SQL condition for `WHERE` over the FTS table `table` (a trusted identifier, not user
    /// input), with its arguments: `table MATCH ?` and, with exclusions,
    /// `AND table.rowid NOT IN (SELECT rowid FROM table WHERE table MATCH ?)`.
    public func condition(table: String) -> (sql: String, arguments: [SQLValue]) {
        guard let exclusion else { return ("\(table) MATCH ?", [.text(match)]) }
        return ("\(table) MATCH ? AND \(table).rowid NOT IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)",
                [.text(match), .text(exclusion)])
    }
}
