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
    /// encoded, and read a window of 65,536 docids at a time (`PhraseWindow`): memory is that of
    /// the encoded doclists and of one window's positions, not of every position decoded.
    static func phraseMatches(_ tokens: [PhraseToken], table: String = "search_text", db: Connection) throws
        -> Matches?
    {
        var windows: [PhraseWindow] = []
        for token in tokens {
            var doclists = PhraseWindow.Doclists()
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
        var matches = Matches()
        guard !windows.isEmpty else { return matches }
        var lists = [ArraySlice<UInt32>](repeating: [], count: windows.count)
        while let base = windows.compactMap(\.nextDocid).min() {
            for index in windows.indices { guard windows[index].load(from: base) else { return nil } }
            for slot in 0..<PhraseWindow.size where windows.allSatisfy({ $0.holds(slot) }) {
                for index in windows.indices { lists[index] = windows[index].positions(slot) }
                let count = occurrences(lists)
                if count > 0 {
                    matches.docids.append(base + Int64(slot))
                    matches.hits.append(count)
                }
            }
        }
        return matches
    }

    /// The positions `p` of `lists[0]` with `p + i` in `lists[i]` for every `i` (each ascending).
    static func occurrences(_ lists: [ArraySlice<UInt32>]) -> UInt32 {
        guard let first = lists.first else { return 0 }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: lists.count) { next in
            next.initialize(repeating: 0)
            var count: UInt32 = 0
            outer: for start in first {
                for index in 1..<lists.count {
                    let wanted = UInt64(start) + UInt64(index)
                    let list = lists[index]
                    while next[index] < list.count && UInt64(list[list.startIndex + next[index]]) < wanted {
                        next[index] += 1
                    }
                    guard next[index] < list.count else { break outer }
                    if UInt64(list[list.startIndex + next[index]]) != wanted { continue outer }
                }
                count += 1
            }
            return count
        }
    }
}
