import XCTest

@testable import Cipherdex

/// Which terms a pattern stands for, and the leaves a scan may skip (`TermPattern`).
final class TermPatternTests: XCTestCase {
    private func make(_ text: String, _ kind: TermPattern.Kind) -> TermPattern {
        TermPattern(bytes: Array(text.utf8), kind: kind)
    }

    func testEachKindMatchesItsTerms() {
        let cases: [(String, TermPattern.Kind, [String], [String])] = [
            ("装", .term, ["装"], ["安装", "装置", "装装"]),
            ("装", .prefix, ["装", "装置", "装装"], ["安装", "伪装置"]),
            ("装", .suffix, ["装", "安装", "装装"], ["装置", "a"]),
            ("装", .infix, ["装", "安装", "装置", "装装"], ["安置", ""]),
            ("ology", .suffix, ["ology", "geology"], ["geologi", "ologyx", "olog"]),
            ("olog", .infix, ["olog", "geology", "apologies", "ologx"], ["olo", "ogol"]),
        ]
        for (token, kind, matching, others) in cases {
            let pattern = make(token, kind)
            for term in matching { XCTAssertTrue(pattern.matches(Array(term.utf8)), "\(kind) \(token): \(term)") }
            for term in others { XCTAssertFalse(pattern.matches(Array(term.utf8)), "\(kind) \(token): \(term)") }
        }
        XCTAssertEqual(make("装", .infix).lowestTerm, TermPattern.bigramScriptsStart)
        XCTAssertEqual(make("ก", .suffix).lowestTerm, TermPattern.bigramScriptsStart)
        XCTAssertEqual(make("ology", .suffix).lowestTerm, [])
        XCTAssertEqual(make("é", .suffix).lowestTerm, [])
    }

    /// The pruning's premise: every scalar of those blocks is a character of a bigram script,
    /// never a mark.
    func testMarkFreeBlocksHoldOnlyCharactersOfBigramScripts() {
        for block in TermPattern.markFreeBlocks {
            for value in block {
                guard let scalar = Unicode.Scalar(value) else { continue }
                XCTAssertEqual(ScalarClass.of(scalar), .cjk, String(value, radix: 16))
            }
        }
    }

    /// The other premise: no character of a bigram script folds to several scalars one of which
    /// is Han or Hangul (`ゟ` folds to `より`, Thai `ำ` to U+0E4D U+0E32: neither).
    func testNoCharacterFoldsToHanOrHangulAndMore() {
        var longer = 0
        for value in 0...0x323AF where ScalarClass.isCJK(UInt32(value)) {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            let folded = String(decoding: Folding.foldCJK([scalar]), as: UTF8.self).unicodeScalars
            guard folded.count > 1 else { continue }
            longer += 1
            for part in folded {
                XCTAssertFalse(
                    TermPattern.singleFoldBlocks.contains { $0.contains(part.value) }, String(value, radix: 16))
            }
        }
        XCTAssertGreaterThan(longer, 0)  // ゟ, ヿ, ำ and its Lao counterparts
    }

    /// For vocabularies of pairs of Han, kana, Hangul, Thai and supplementary characters, with
    /// variation selectors and voicing marks, cut into leaves and groups of leaves the way FTS4
    /// cuts them (each bounded by the shortest prefix of its first term above the last term
    /// before it), no leaf or group holding a term a pattern wants is ruled out, and most others
    /// are.
    func testBoundsNeverRuleOutALeafHoldingAWantedTerm() {
        let raw = [
            "品", "装", "安", "的", "人", "一", "丁", "七", "万", "三", "上", "下", "不", "世", "中", "乐", "九", "也",
            "书", "了", "事", "二", "于", "五", "亚", "京", "今", "介", "从", "仙", "代", "以", "们", "龍", "龘", "か",
            "が", "か\u{3099}", "ぱ", "ア", "ヴ", "ｶﾞ", "葛\u{E0100}", "葛", "辻\u{FE00}", "한", "국", "어", "ก", "ำ",
            "ภ", "า", "ษ", "ไ", "ท", "ย", "𠀀", "𠀁", "々", "ㄅ", "ᄀ", "ᅡ", "ຳ", "ゟ", "り", "よ", "ヿ", "葛\u{E0101}",
            "品\u{FE00}", "한\u{0301}", "丁\u{3099}",
        ]
        let units = raw.map { String(decoding: Folding.foldCJK(Array($0.unicodeScalars)), as: UTF8.self) }
        var random = SeededWords(seed: 5)
        for round in 0..<20 {
            var vocabulary = Set(units)
            for _ in 0..<(200 + round * 150) {
                vocabulary.insert(units[random.number(units.count)] + units[random.number(units.count)])
            }
            vocabulary.formUnion(["geology", "ology", "apologies", "a", "zz"])
            let terms = vocabulary.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            var leaves: [[[UInt8]]] = []
            var start = 0
            while start < terms.count {
                let end = min(terms.count, start + 1 + random.number(round % 4 == 0 ? 3 : 12))
                leaves.append(Array(terms[start..<end]))
                start = end
            }
            // Leaf i's bounds: [separators[i], separators[i + 1]), none below the first or above the last.
            var separators: [[UInt8]?] = [[]]
            for index in 1..<leaves.count {
                let last = leaves[index - 1].last!
                let first = leaves[index].first!
                var shared = 0
                while shared < last.count && first[shared] == last[shared] { shared += 1 }
                separators.append(Array(first[...shared]))
            }
            separators.append(nil)
            let groupSize = 1 + random.number(6)
            for text in ["品", "葛", "が", "한", "ำ", "ย", "𠀁", "ᅡ", "り", "ト", "丁", "ology", "olog"] {
                let token = String(decoding: Folding.foldCJK(Array(text.unicodeScalars)), as: UTF8.self)
                for kind in [TermPattern.Kind.suffix, .infix] {
                    let pattern = make(text.unicodeScalars.first!.value < 0x80 ? text : token, kind)
                    var skipped = 0
                    for size in [1, groupSize] {
                        for first in Swift.stride(from: 0, to: leaves.count, by: size) {
                            let last = min(first + size, leaves.count)
                            let low = separators[first]!
                            let high = separators[last]
                            let wanted = leaves[first..<last].joined().filter { pattern.matches($0) }
                            if pattern.mayHoldMatch(from: low, below: high) {
                                continue
                            }
                            skipped += 1
                            XCTAssertEqual(
                                wanted.map { String(decoding: $0, as: UTF8.self) }, [],
                                "\(kind) \(text), round \(round): leaves \(first)..<\(last) ruled out")
                        }
                    }
                    if ["品", "葛", "한", "𠀁", "丁"].contains(text) && round > 4 {
                        XCTAssertGreaterThan(skipped, 0, "\(kind) \(text), round \(round): nothing skipped")
                    }
                }
            }
        }
    }
}
