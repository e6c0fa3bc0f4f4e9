extension FTS4Postings {
    /// One token of a phrase: its folded UTF-8 and whether it is a prefix.
    struct PhraseToken: Equatable {
        /// The token as the tokenizer writes it into the index.
        var bytes: [UInt8]
        /// True when the token stands for every term it begins.
        var prefix: Bool
    }

    /// The rows where `tokens` stand one after the other, with how often (`matchinfo`'s 'x' of a
    /// phrase: the positions where the whole phrase starts), ascending; nil when the index holds
    /// something this reader does not read.
    ///
    /// Each token's doclists (every term it stands for, in every segment) are copied, still
    /// encoded, and read a window of 65,536 docids at a time (`PhraseWindow`). Only a row every
    /// token holds has its positions decoded: the first token's into a list of starts, each next
    /// token's merged with them as it is decoded (a token of one term) or stamped into a table
    /// indexed by position (a prefix of several), and the starts kept that find the token at
    /// their offset (`PhraseCounter`). Memory is that of the encoded doclists, of one window's
    /// entries and of a table as long as the longest row.
    static func phraseMatches(_ tokens: [PhraseToken], table: String = "search_text", db: Connection) throws
        -> Matches?
    {
        var windows: [PhraseWindow] = []
        for token in tokens {
            let doclists = PhraseWindow.Doclists()
            var terms: [[UInt8]: Int] = [:]
            let read = try forEachDoclist(of: token.bytes, prefix: token.prefix, table: table, db: db) {
                term, doclist in
                let number = terms[term] ?? terms.count
                terms[term] = number
                doclists.add(doclist, term: number)  // newest segment first
                return true
            }
            guard read else { return nil }
            windows.append(PhraseWindow(doclists))
        }
        return phraseMatches(windows)
    }

    /// The rows where the tokens of `windows` (one per token, in phrase order) stand one after
    /// the other, with how often; nil when a doclist does not parse or a position is not below
    /// `PhraseCounter.positionLimit`. Only the rows every token holds have their position lists
    /// decoded, so damage in another row's list goes unseen, as it does not change the result
    /// (every list's extent is still checked).
    static func phraseMatches(_ windows: [PhraseWindow]) -> Matches? {
        var matches = Matches()
        guard !windows.isEmpty else { return matches }
        guard !windows.contains(where: \.failed) else { return nil }
        var counter = PhraseCounter()
        while let base = windows.compactMap(\.nextDocid).min() {
            for window in windows { guard window.load(from: base) else { return nil } }
            let rows = windows.map(\.rows)
            let single = rows.allSatisfy(\.single)
            slots: for slot in 0..<PhraseWindow.size {
                for row in rows where !row.holds(slot) { continue slots }
                guard let count = counter.occurrences(in: slot, of: rows, single: single) else { return nil }
                if count > 0 {
                    matches.docids.append(base + Int64(slot))
                    matches.hits.append(count)
                }
            }
        }
        return matches
    }
}
