import Foundation

/// Makes damaged PDFs from real ones, reproducibly: byte flips, truncations, and objects spliced
/// in from other files (`MutatedPDFCommandTests`). The same seed gives the same files.
struct PDFMutator {
    /// The kinds of damage, one per mutated file.
    enum Mutation: String, CaseIterable {
        /// A few random bytes XORed with random values.
        case flipBytes
        /// Cut at a random offset (never to nothing).
        case truncate
        /// An `N G obj … endobj` object of another file inserted at an object boundary.
        case spliceObject
        /// One of this file's objects replaced by another file's object (same number, other body).
        case replaceObject
        /// A stretch of bytes repeated in place (a duplicated stream or xref piece).
        case duplicateRange
    }

    /// Where every choice comes from.
    private var random: SeededGenerator

    /// A mutator whose choices all follow from `seed`.
    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// A random integer in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { random.below(bound) }

    /// `original` damaged by `mutation`, with objects for splicing taken from `donor`.
    mutating func mutate(_ original: [UInt8], _ mutation: Mutation, donor: [UInt8]) -> [UInt8] {
        var bytes = original
        guard !bytes.isEmpty else { return bytes }
        switch mutation {
        case .flipBytes:
            for _ in 0..<(1 + below(8)) {
                bytes[below(bytes.count)] ^= UInt8(1 + below(255))
            }
        case .truncate:
            bytes.removeSubrange((1 + below(max(bytes.count - 1, 1)))...)
        case .spliceObject:
            let objects = Self.objectRanges(in: bytes)
            let at = objects.isEmpty ? below(bytes.count) : objects[below(objects.count)].lowerBound
            if let object = randomObject(in: donor) { bytes.insert(contentsOf: object, at: at) }
        case .replaceObject:
            let objects = Self.objectRanges(in: bytes)
            if !objects.isEmpty, let object = randomObject(in: donor) {
                let target = objects[below(objects.count)]
                // Keep the replaced object's number so references resolve to the foreign body.
                let header = bytes[target].prefix { $0 != UInt8(ascii: "j") }
                let body = object.drop { $0 != UInt8(ascii: "j") }
                bytes.replaceSubrange(target, with: Array(header) + Array(body))
            }
        case .duplicateRange:
            let start = below(bytes.count)
            let length = 1 + below(min(4096, bytes.count - start))
            bytes.insert(contentsOf: bytes[start..<(start + length)], at: start)
        }
        return bytes
    }

    /// A random whole object of `bytes`, if it has any.
    private mutating func randomObject(in bytes: [UInt8]) -> [UInt8]? {
        let objects = Self.objectRanges(in: bytes)
        guard !objects.isEmpty else { return nil }
        return Array(bytes[objects[below(objects.count)]])
    }

    /// The ranges `N G obj … endobj` in `bytes` (found by the keywords; streams may fool it, which
    /// only makes the damage stranger).
    static func objectRanges(in bytes: [UInt8]) -> [Range<Int>] {
        let open = Array(" obj".utf8)
        let close = Array("endobj".utf8)
        var ranges: [Range<Int>] = []
        var index = 0
        while let found = find(open, in: bytes, from: index) {
            var start = found
            // Back over "G" and "N" (digits and one space between them).
            while start > 0, bytes[start - 1] == UInt8(ascii: " ") || (48...57).contains(bytes[start - 1]) {
                start -= 1
            }
            guard let end = find(close, in: bytes, from: found + open.count) else { break }
            if start < found { ranges.append(start..<(end + close.count)) }
            index = end + close.count
        }
        return ranges
    }

    /// The first offset of `needle` in `haystack` at or after `from`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count, from <= haystack.count - needle.count else { return nil }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
