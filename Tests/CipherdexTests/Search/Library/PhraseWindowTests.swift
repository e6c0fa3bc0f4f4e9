import XCTest

@testable import Cipherdex

/// `PhraseWindow` and `PhraseCounter` on doclists written by hand: several terms of one token,
/// a newer segment's entry deleting a row, windows far apart, and lists that must be refused.
final class PhraseWindowTests: XCTestCase {
    /// An FTS4 doclist: each row's docid (the first whole, then deltas), its positions (deltas
    /// plus 2) and a 0.
    private func doclist(_ rows: [(docid: Int64, positions: [UInt64])]) -> [UInt8] {
        var bytes: [UInt8] = []
        func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        var previousDocid: Int64 = 0
        for row in rows {
            varint(UInt64(row.docid - previousDocid))
            previousDocid = row.docid
            var previous: UInt64 = 0
            for position in row.positions {
                varint(position - previous + 2)
                previous = position
            }
            bytes.append(0)
        }
        return bytes
    }

    /// A token's window from doclists given newest segment first, each with its term's number.
    private func window(_ lists: [(term: Int, bytes: [UInt8])]) -> PhraseWindow {
        let doclists = PhraseWindow.Doclists()
        for list in lists { list.bytes.withUnsafeBytes { doclists.add($0, term: list.term) } }
        return PhraseWindow(doclists)
    }

    /// Doclists a helper copied into mappings of their own and moved in whole (`adopt`, a gap
    /// before each) are read as the same doclists added one by one: the same matches, for random
    /// rows, a token of several terms and a newer segment's deletions.
    func testAdoptedDoclistsAreReadAsAddedOnes() throws {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 5)
        for round in 0..<20 {
            // Per token: segments newest first, each holding a doclist per term it has.
            var tokens: [[[(term: Int, bytes: [UInt8])]]] = []
            for _ in 0..<2 {
                var segments: [[(term: Int, bytes: [UInt8])]] = []
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    var lists: [(term: Int, bytes: [UInt8])] = []
                    for term in 0..<Int.random(in: 1...3, using: &generator) {
                        let rows = Array(Set((0..<40).map { _ in Int64.random(in: 0..<300, using: &generator) }))
                            .sorted()
                        lists.append(
                            (
                                term,
                                doclist(
                                    rows.map { row in
                                        (
                                            row,
                                            Int.random(in: 0..<8, using: &generator) == 0
                                                ? []
                                                : Array(
                                                    Set(
                                                        (0..<6).map { _ in UInt64.random(in: 0..<30, using: &generator)
                                                        })
                                                ).sorted()
                                        )
                                    })
                            ))
                    }
                    segments.append(lists)
                }
                tokens.append(segments)
            }
            var added: [PhraseWindow] = []
            var adopted: [PhraseWindow] = []
            for segments in tokens {
                added.append(window(segments.flatMap { $0 }))
                let doclists = PhraseWindow.Doclists()
                for (number, lists) in segments.enumerated() {
                    if number % 2 == 0 {
                        for list in lists { list.bytes.withUnsafeBytes { doclists.add($0, term: list.term) } }
                        continue
                    }
                    // As a helper copies a segment: its doclists one after the other in a mapping.
                    let chunk = try XCTUnwrap(GrowableMapping(capacity: 1))
                    var ranges: [Range<Int>] = []
                    var used = 0
                    for list in lists {
                        XCTAssertTrue(chunk.grow(toAtLeast: used + list.bytes.count))
                        list.bytes.withUnsafeBytes {
                            (chunk.baseAddress + used).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                        }
                        ranges.append(used..<(used + list.bytes.count))
                        used += list.bytes.count
                    }
                    doclists.adopt(chunk, ranges: ranges, terms: lists.map(\.term))
                    XCTAssertEqual(chunk.capacity, 0, "round \(round): the pages moved")
                }
                adopted.append(PhraseWindow(doclists))
            }
            let expected = try XCTUnwrap(FTS4Postings.phraseMatches(added))
            XCTAssertEqual(FTS4Postings.phraseMatches(adopted), expected, "round \(round)")
        }
    }

    func testTermsOfATokenAreMergedPerRow() {
        // Token A: term 0 at 1 and 5 of row 3; term 1 at 9 of row 3 and at 0 of row 4.
        let a = window([
            (0, doclist([(3, [1, 5])])),
            (1, doclist([(3, [9]), (4, [0])])),
        ])
        // Token B: at 2 and 10 of row 3, at 1 of row 4, at 7 of row 200,000 (another window).
        let b = window([(0, doclist([(3, [2, 10]), (4, [1]), (200_000, [7])]))])
        let matches = FTS4Postings.phraseMatches([a, b])
        XCTAssertEqual(matches, FTS4Postings.Matches(docids: [3, 4], hits: [2, 1]))
    }

    func testANewerSegmentsEmptyEntryDeletesTheRow() {
        let a = window([(0, doclist([(3, [1]), (4, [0])]))])
        // Newest first: row 4's empty list deletes the older entry; row 3 is only in the older.
        let b = window([
            (0, doclist([(4, [])])),
            (0, doclist([(3, [2]), (4, [1])])),
        ])
        XCTAssertEqual(FTS4Postings.phraseMatches([a, b]), FTS4Postings.Matches(docids: [3], hits: [1]))
    }

    func testRepeatedAndThreeTokenPhrases() {
        let x = doclist([(1, [0, 1, 2, 3]), (70_000, [5, 6, 8])])
        XCTAssertEqual(
            FTS4Postings.phraseMatches([window([(0, x)]), window([(0, x)])]),
            FTS4Postings.Matches(docids: [1, 70_000], hits: [3, 1]))
        XCTAssertEqual(
            FTS4Postings.phraseMatches([window([(0, x)]), window([(0, x)]), window([(0, x)])]),
            FTS4Postings.Matches(docids: [1], hits: [2]))
    }

    func testListsThatDoNotParseOrReachTooFarAreRefused() {
        let a = window([(0, doclist([(3, [1])]))])
        let far = window([(0, doclist([(3, [UInt64(PhraseCounter.positionLimit)])]))])
        XCTAssertNil(FTS4Postings.phraseMatches([a, far]), "a position past the limit goes to FTS4")
        let cut = window([(0, [3, 0x83])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, cut]), "a position list that does not end")
        let repeated = window([(0, [5, 3, 0, 0, 3, 0])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, repeated]), "a docid repeated (a delta of 0)")
        // A delta of 2^64 - 1: the docid wraps to 4, below 5.
        let wrapping = window([(0, [5, 3, 0] + Array(repeating: 0xFF, count: 9) + [0x01, 3, 0])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, wrapping]), "docids that do not ascend")
        let column = window([(0, [3, 3, 1, 1, 2, 0])])
        XCTAssertNil(FTS4Postings.phraseMatches([a, column]), "a second column")
        XCTAssertEqual(FTS4Postings.phraseMatches([]), FTS4Postings.Matches())
        let bad = [UInt8]([0x83])
        XCTAssertNil(
            FTS4Postings.phraseMatches([window([(0, bad)]), window([(0, bad)])]),
            "every window refused: nil, not no rows")
        let empty = window([])
        XCTAssertNil(FTS4Postings.phraseMatches([window([(0, bad)]), empty]), "one refused, the other empty")
        XCTAssertEqual(FTS4Postings.phraseMatches([a, empty]), FTS4Postings.Matches(), "a token in no row")
    }

    func testGenerationsStartAgainWhenTheyRunOut() throws {
        let x = window([(0, doclist([(0, [0, 1, 2]), (1, [3, 4]), (2, [7, 9])]))])
        let y = window([(0, doclist([(0, [1, 2, 5]), (1, [4, 8]), (2, [8, 10])]))])
        XCTAssertTrue(x.load(from: 0) && y.load(from: 0))
        let rows = [x.rows, y.rows]
        var counter = PhraseCounter(generation: UInt32.max - 2)
        // Each row uses one generation: the third and the ones after it run past UInt32.max.
        for _ in 0..<3 {
            XCTAssertEqual(counter.occurrences(in: 0, of: rows), 2)
            XCTAssertEqual(counter.occurrences(in: 1, of: rows), 1)
            XCTAssertEqual(counter.occurrences(in: 2, of: rows), 2)
        }
    }

    /// Windows of one term each are `single` and counted by merging, those of several terms are
    /// not; either way gives the stamp table's counts: for random rows (long ones, positions of
    /// several bytes, repeated positions, a token repeated in the phrase) and for lists the merge
    /// leaves to the general way (a column marker, a position past the limit).
    func testMergingCountsAsStampingDoes() throws {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 7)
        func positions() -> [UInt64] {
            let count = Int.random(in: 1...(Bool.random(using: &generator) ? 12 : 3_000), using: &generator)
            let spread = UInt64.random(in: 1...4, using: &generator)
            var at = UInt64.random(in: 0...3, using: &generator)
            return (0..<count).map { _ in
                defer { at += UInt64.random(in: 0...spread, using: &generator) }
                return at
            }
        }
        for round in 0..<40 {
            let tokens = Int.random(in: 2...4, using: &generator)
            let rows = Array(Set((0..<30).map { _ in Int64.random(in: 0..<200, using: &generator) })).sorted()
            var lists = (0..<tokens).map { _ in doclist(rows.map { ($0, positions()) }) }
            if round % 10 == 9 { lists[1] = lists[0] }
            let windows = lists.map { window([(0, $0)]) }
            for window in windows { XCTAssertTrue(window.load(from: 0)) }
            let loaded = windows.map(\.rows)
            XCTAssertTrue(loaded.allSatisfy(\.single))
            var merging = PhraseCounter()
            var stamping = PhraseCounter()
            var found = 0
            for row in rows {
                let slot = Int(row)
                let merged = merging.occurrences(in: slot, of: loaded, single: true)
                XCTAssertEqual(merged, stamping.occurrences(in: slot, of: loaded), "round \(round), row \(row)")
                found += Int(merged ?? 0)
            }
            XCTAssertGreaterThan(found, 0, "round \(round)")
            XCTAssertEqual(merging.mergedRows, rows.count, "round \(round): every row merged")
            XCTAssertEqual(stamping.mergedRows, 0)
        }
        let a = window([(0, doclist([(3, [1, 5])])), (1, doclist([(3, [9])]))])
        XCTAssertTrue(a.load(from: 0))
        XCTAssertFalse(a.rows.single, "a row of two terms")
        // Row 3: a column marker for column 0 (the general way reads it; the merge leaves it), and a
        // position past the limit (the general way refuses it).
        let marked = window([(0, [3, 3, 1, 0, 4, 0])])
        let b = window([(0, doclist([(3, [2, 3])]))])
        let far = window([(0, doclist([(3, [2, UInt64(PhraseCounter.positionLimit)])]))])
        XCTAssertTrue(marked.load(from: 0) && b.load(from: 0) && far.load(from: 0))
        var counter = PhraseCounter()
        XCTAssertEqual(counter.occurrences(in: 3, of: [marked.rows, b.rows], single: true), 2)
        XCTAssertNil(counter.occurrences(in: 3, of: [b.rows, far.rows], single: true))
        XCTAssertEqual(counter.mergedRows, 0, "both left to the general way")
        XCTAssertEqual(counter.occurrences(in: 3, of: [b.rows, b.rows], single: true), 1)
        XCTAssertEqual(counter.mergedRows, 1)
    }

    /// Tokens of several terms (rows of chained entries, counted the stamping way) give what a
    /// plain count gives: random rows with deltas of several bytes, varints of more bytes than
    /// needed, column-0 markers (positions start again) and, now and then, a position past the
    /// limit or a varint of 0, which refuse the row (nil) as the reference does. (A marker of
    /// another column stops the window's load, `testListsThatDoNotParseOrReachTooFarAreRefused`.)
    func testRowsOfSeveralTermsAreCountedAsAPlainCountDoes() throws {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 21)
        /// One position list's bytes (without the 0 that ends it) and the positions it gives,
        /// nil when it must be refused.
        func list() -> (bytes: [UInt8], positions: [Int]?) {
            var bytes: [UInt8] = []
            var positions: [Int]? = []
            var at = 0
            func varint(_ value: UInt64, padded: Bool) {
                var value = value
                while value >= 0x80 {
                    bytes.append(UInt8(value & 0x7f) | 0x80)
                    value >>= 7
                }
                if padded {
                    bytes.append(UInt8(value) | 0x80)
                    bytes.append(0)
                } else {
                    bytes.append(UInt8(value))
                }
            }
            for _ in 0..<Int.random(in: 1...(Bool.random(using: &generator) ? 6 : 400), using: &generator) {
                switch Int.random(in: 0..<200, using: &generator) {
                case 0:
                    bytes += [1, 0]
                    at = 0
                case 1:
                    varint(UInt64(PhraseCounter.positionLimit - at) + 2, padded: false)
                    positions = nil
                case 2:
                    bytes += [0x80, 0x00]  // a varint of 0: does not parse as a position
                    positions = nil
                default:
                    let delta = Int.random(in: 0...(Bool.random(using: &generator) ? 3 : 300), using: &generator)
                    varint(UInt64(delta) + 2, padded: Int.random(in: 0..<20, using: &generator) == 0)
                    at += delta
                    positions?.append(at)
                }
            }
            return (bytes, positions)
        }
        var (refusedRows, matchedRows) = (0, 0)
        for round in 0..<60 {
            let tokenCount = Int.random(in: 2...3, using: &generator)
            let docids = Array(Set((0..<40).map { _ in Int64.random(in: 0..<300, using: &generator) })).sorted()
            var windows: [PhraseWindow] = []
            // Per token: the positions of every term in each row it holds, and the rows refused.
            var expected: [(positions: [Int64: [Int]], refused: Set<Int64>)] = []
            for _ in 0..<tokenCount {
                let terms = Int.random(in: 1...4, using: &generator)
                var lists: [(term: Int, bytes: [UInt8])] = []
                var token: (positions: [Int64: [Int]], refused: Set<Int64>) = ([:], [])
                for term in 0..<terms {
                    var bytes: [UInt8] = []
                    var previous: Int64 = 0
                    for docid in docids where Int.random(in: 0..<3, using: &generator) > 0 {
                        let (encoded, positions) = list()
                        var delta = UInt64(docid - previous)
                        while delta >= 0x80 {
                            bytes.append(UInt8(delta & 0x7f) | 0x80)
                            delta >>= 7
                        }
                        bytes.append(UInt8(delta))
                        bytes += encoded + [0]
                        previous = docid
                        token.positions[docid, default: []] += positions ?? []
                        if positions == nil { token.refused.insert(docid) }
                    }
                    lists.append((term, bytes))
                }
                windows.append(window(lists))
                expected.append(token)
            }
            for window in windows { XCTAssertTrue(window.load(from: 0), "round \(round)") }
            let rows = windows.map(\.rows)
            var counter = PhraseCounter()
            for docid in docids where expected.allSatisfy({ $0.positions[docid] != nil }) {
                // The reference: token 0's positions are the starts; each next token keeps those
                // it continues, and is not read once none is left.
                var reference: Int? = nil
                if !expected[0].refused.contains(docid), var starts = expected[0].positions[docid] {
                    reference = 0
                    for index in 1..<tokenCount where !starts.isEmpty {
                        guard !expected[index].refused.contains(docid), let positions = expected[index].positions[docid]
                        else {
                            reference = nil
                            break
                        }
                        let present = Set(positions)
                        starts = starts.filter { present.contains($0 + index) }
                    }
                    if reference != nil { reference = starts.count }
                }
                let counted = counter.occurrences(in: Int(docid), of: rows).map(Int.init)
                XCTAssertEqual(counted, reference, "round \(round), row \(docid)")
                if counted == nil { refusedRows += 1 }
                if (counted ?? 0) > 0 { matchedRows += 1 }
            }
        }
        XCTAssertGreaterThan(refusedRows, 0, "some rows are refused")
        XCTAssertGreaterThan(matchedRows, 20, "and many hold the phrase")
    }

    /// FTS4's own phrase matching, for rows on both sides of window boundaries (multiples of
    /// 8,192 docids),
    /// rows longer than the counter's first table (4,096 positions), rows changed and deleted in
    /// later segments, and prefixes of several terms.
    func testPhrasesAcrossWindowsAndLongRowsMatchFTS4() throws {
        let (db, directory) = try FTS4PostingsTests.plainDatabase("phrase-windows")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try db.execute("CREATE VIRTUAL TABLE w USING fts4(body)")
        var words = SeededWords(seed: 3)
        func text(_ count: Int) -> String { (0..<count).map { _ in words.word() }.joined(separator: " ") }
        let docids: [Int64] = [1, 2, 65_535, 65_536, 65_537, 131_071, 131_072, 131_073, 200_000, 1_000_000]
        for (index, docid) in docids.enumerated() {
            let length = index % 3 == 0 ? 9_000 : 60
            try db.execute("INSERT INTO w (docid, body) VALUES (?, ?)", [.integer(docid), .text(text(length))])
        }
        try db.execute("UPDATE w SET body = ? WHERE docid = 65536", [.text(text(5_000))])
        try db.execute("DELETE FROM w WHERE docid = 131072")
        try db.execute("INSERT INTO w (docid, body) VALUES (131074, ?)", [.text(text(100))])
        let segments = try db.scalar("SELECT count(*) FROM w_segdir")?.integerValue ?? 0
        XCTAssertGreaterThan(segments, 5, "one segment a statement")
        for phrase in ["the patient", "pat* the", "the the", "w1* w2*", "a ab", "x x x", "the* a"] {
            let expected = try FTS4PostingsTests.fts4Matches("\"" + phrase + "\"", table: "w", db: db)
            let tokens = phrase.split(separator: " ").map {
                FTS4Postings.PhraseToken(
                    bytes: Array($0.utf8.filter { $0 != UInt8(ascii: "*") }), prefix: $0.hasSuffix("*"))
            }
            XCTAssertEqual(try FTS4Postings.phraseMatches(tokens, table: "w", db: db), expected, phrase)
        }
        let common = try FTS4PostingsTests.fts4Matches("\"the the\"", table: "w", db: db)
        XCTAssertTrue(common.docids.contains(1_000_000), "a match past the last window boundary")
    }

    /// Random bytes as doclists, and valid doclists cut or flipped at random: each phrase is
    /// counted or refused (nil), never read out of bounds (`make asan` runs this under
    /// AddressSanitizer) or trapped.
    func testDamagedDoclistsAreCountedOrRefused() {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 99)
        let valid = doclist([(1, [0, 3, 9]), (2, [1]), (65_535, [4, 5]), (65_536, [0, 1, 2]), (70_000, [7])])
        var refused = 0
        for _ in 0..<1_000 {
            var lists: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                var bytes = valid
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
                case 1:
                    bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                default:
                    let at = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
                }
                lists.append(bytes)
            }
            let windows = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                window(lists.enumerated().map { (term: $0.offset, bytes: $0.element) })
            }
            if let matches = FTS4Postings.phraseMatches(windows) {
                XCTAssertEqual(matches.docids, matches.docids.sorted())
                XCTAssertEqual(Set(matches.docids).count, matches.docids.count)
                XCTAssertFalse(matches.hits.contains(0))
            } else {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 100, "damage is refused")
        XCTAssertLessThan(refused, 1_000, "and what still parses is counted")
    }

    /// Doclists of two tokens over 300,000 docids in a few segments (rows deleted in a newer one),
    /// some damaged: counted on two threads from any split, or by the caller alone when no helper
    /// starts, they give what one thread gives (the same rows and hits, or nil for both).
    func testTwoThreadsCountWhatOneThreadCounts() {
        var generator = SearchTokenizerEquivalenceTests.SplitMix(state: 7)
        func rows(_ docids: StrideTo<Int64>, positions: Int) -> [(docid: Int64, positions: [UInt64])] {
            docids.map { docid in
                var at: UInt64 = 0
                return (
                    docid,
                    (0..<Int.random(in: 1...positions, using: &generator)).map { _ in
                        at += UInt64.random(in: 1...3, using: &generator)
                        return at
                    }
                )
            }
        }
        for round in 0..<6 {  // each of the three kinds twice (a debug build: about 7 s a round)
            // Token a: an older segment of every third row, a newer one deleting some of them
            // (empty lists) and adding others; token b: every other row.
            var newer = rows(stride(from: 5, to: 300_000, by: 7), positions: 6)
            for index in newer.indices where index % 5 == 0 { newer[index].positions = [] }
            var a = [
                (term: 0, bytes: doclist(newer)),
                (term: 0, bytes: doclist(rows(stride(from: 3, to: 300_000, by: 3), positions: 8))),
            ]
            var b = [(term: 0, bytes: doclist(rows(stride(from: 2, to: 300_000, by: 2), positions: 8)))]
            if round % 3 == 1 {
                let at = Int.random(in: 0..<a[1].bytes.count, using: &generator)
                a[1].bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            }
            if round % 3 == 2 {
                b[0].bytes = Array(b[0].bytes.prefix(Int.random(in: 0..<b[0].bytes.count, using: &generator)))
            }
            func doclists() -> [PhraseWindow.Doclists] {
                [a, b].map { lists in
                    let doclists = PhraseWindow.Doclists()
                    for list in lists { list.bytes.withUnsafeBytes { doclists.add($0, term: list.term) } }
                    return doclists
                }
            }
            let one = FTS4Postings.phraseMatches(doclists().map(PhraseWindow.init))
            if round % 3 == 0 { XCTAssertGreaterThan(one?.docids.count ?? 0, 1_000, "round \(round)") }
            for split: Int64 in [-5, 0, 1, 65_536, 150_000, 150_001, 299_999, 300_000, 1 << 40] {
                // `highest` only sizes the lists' room: a wrong one changes nothing.
                for highest: Int64 in [300_000, 1, -9] {
                    XCTAssertEqual(
                        FTS4Postings.phraseMatches(doclists(), splitAt: split, highest: highest), one,
                        "round \(round), split \(split), highest \(highest)")
                }
            }
            XCTAssertEqual(FTS4Postings.phraseMatches(doclists().map(PhraseWindow.init), through: 300_000), one)
            // No helper ever starts: the caller counts the upper rows too, and a late helper
            // finds them taken.
            let lists = doclists()
            let windows = lists.map(PhraseWindow.init)
            let upper = PhraseHalf(lists, from: 150_000, highest: 300_000)
            let lower = FTS4Postings.phraseMatches(windows, below: 150_000)
            let rest = upper.result()
            upper.countIfUnclaimed()
            if let one {
                XCTAssertEqual((lower?.docids ?? []) + (rest?.docids ?? []), one.docids, "round \(round)")
                XCTAssertEqual((lower?.hits ?? []) + (rest?.hits ?? []), one.hits, "round \(round)")
            } else {
                XCTAssertTrue(lower == nil || rest == nil, "round \(round): refused by one thread, so by one half")
            }
        }
    }
}
