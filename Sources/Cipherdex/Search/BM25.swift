import Foundation

/// Okapi BM25 relevance from FTS4 `matchinfo(table, 'pcnalx')`, in pure Swift.
///
/// For each phrase `i` and column `j` with `tf` hits in the row, `df` rows containing it among `N`:
/// `weight[j] * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length[j] / averageLength[j]))`,
/// with `idf = ln(1 + (N - df + 0.5) / (df + 0.5))` (always positive, as in Lucene), summed.
/// Higher is better (unlike FTS5's `bm25()`, which is negated).
public enum BM25 {
    /// The SQL function name (`cipherdex_bm25(matchinfo(t, 'pcnalx'), weight...)`).
    public static let functionName = "cipherdex_bm25"
    /// Term-frequency saturation.
    public static let k1 = 1.2
    /// Length normalisation.
    public static let b = 0.75

    /// Why a matchinfo array cannot be scored.
    public enum MatchInfoError: Error, LocalizedError, Equatable, Sendable {
        /// The array's size does not match the 'pcnalx' layout.
        case malformed(count: Int)

        /// A one-line description.
        public var errorDescription: String? {
            switch self {
            case .malformed(let count):
                return "a matchinfo array of \(count) values does not fit the 'pcnalx' layout "
                    + "(3 + 2 × columns + 3 × columns × phrases values, at most 65536 columns and phrases)"
            }
        }
    }

    /// The score of one row from its 'pcnalx' matchinfo values and per-column weights (missing
    /// weights are 1).
    public static func score(matchInfo: [UInt32], weights: [Double] = []) throws -> Double {
        try matchInfo.withUnsafeBufferPointer { try score(matchInfo: $0, weights: weights) }
    }

    /// The idf of each phrase and column last computed, by the counts it was computed from: the
    /// rows of one statement share `N` and each phrase's `df`, so a pass over many rows computes
    /// each logarithm once (the same expression, so the same value).
    struct IDFCache {
        fileprivate var counts: [(rows: UInt32, documents: UInt32)] = []
        fileprivate var values: [Double] = []

        /// An empty cache.
        init() {}

        fileprivate mutating func idf(_ slot: Int, rows: UInt32, documents: UInt32) -> Double {
            if slot < counts.count, counts[slot] == (rows, documents) { return values[slot] }
            let value = BM25.idf(rows: rows, documents: documents)
            if slot >= counts.count {
                counts += Array(repeating: (0, 0), count: slot + 1 - counts.count)
                values += Array(repeating: 0, count: slot + 1 - values.count)
            }
            counts[slot] = (rows, documents)
            values[slot] = value
            return value
        }
    }

    /// `ln(1 + (N - df + 0.5) / (df + 0.5))` for `rows` rows of which `documents` hold the phrase.
    @inline(__always)
    static func idf(rows: UInt32, documents: UInt32) -> Double {
        log1p((Double(rows) - Double(documents) + 0.5) / (Double(documents) + 0.5))
    }

    /// One row's score among rows of one column of weight 1 that share `N`, the average length
    /// and each phrase's rows (`documents`): `score`'s expressions in its order, so its values bit
    /// for bit, without a row's 'pcnalx' values written out (issue 12: `TopHits` scores a common
    /// word's million rows as it compares them, without keeping their scores).
    struct RowScorer {
        private let idfs: [Double]
        private let averageLength: Double

        /// The scorer for rows of a table of `rows` rows whose average length is `average`, of
        /// phrases held by `documents` rows each.
        init(rows: UInt32, average: UInt32, documents: [UInt32]) {
            idfs = documents.map { BM25.idf(rows: rows, documents: $0) }
            averageLength = max(Double(average), 1)
        }

        /// True when every phrase's idf is above 0 (a table's counts as FTS4 keeps them: no
        /// phrase in more rows than the table has), so that a row with a hit scores above 0
        /// and one without scores exactly 0 (`TopHits.SlotScores`).
        var scoresRowsAboveZero: Bool { !idfs.isEmpty && idfs.allSatisfy { $0 > 0 && $0.isFinite } }

        /// The score of row `index`, whose hits of each phrase are at `index * phrases` in `hits`
        /// and whose length is `length`.
        @inline(__always)
        func score(_ index: Int, hits: UnsafeBufferPointer<UInt32>, length: UInt32) -> Double {
            let phrases = idfs.count
            let weight = 1.0
            let norm = k1 * (1 - b + b * Double(length) / averageLength)
            var total = 0.0
            for phrase in 0..<phrases {
                let frequency = Double(hits[index * phrases + phrase])
                guard frequency > 0 else { continue }
                total += weight * idfs[phrase] * frequency * (k1 + 1) / (frequency + norm)
            }
            return total
        }
    }

    /// The score of one row from its 'pcnalx' matchinfo values and per-column weights.
    static func score(matchInfo info: UnsafeBufferPointer<UInt32>, weights: [Double]) throws -> Double {
        var cache = IDFCache()
        return try score(matchInfo: info, weights: weights, cache: &cache)
    }

    /// `score` with the idf values kept in `cache` for the next rows.
    static func score(matchInfo info: UnsafeBufferPointer<UInt32>, weights: [Double], cache: inout IDFCache) throws
        -> Double
    {
        guard info.count >= 3 else { throw MatchInfoError.malformed(count: info.count) }
        let phrases = Int(info[0])
        let columns = Int(info[1])
        let rows = info[2]
        guard phrases <= 1 << 16, columns <= 1 << 16, info.count == 3 + 2 * columns + 3 * columns * phrases else {
            throw MatchInfoError.malformed(count: info.count)
        }
        var total = 0.0
        for column in 0..<columns {
            let weight = column < weights.count ? weights[column] : 1
            guard weight != 0 else { continue }
            let average = max(Double(info[3 + column]), 1)
            let length = Double(info[3 + columns + column])
            let norm = k1 * (1 - b + b * length / average)
            for phrase in 0..<phrases {
                let base = 3 + 2 * columns + 3 * (phrase * columns + column)
                let frequency = Double(info[base])
                guard frequency > 0 else { continue }
                let idf = cache.idf(phrase * columns + column, rows: rows, documents: info[base + 2])
                total += weight * idf * frequency * (k1 + 1) / (frequency + norm)
            }
        }
        return total
    }
}
