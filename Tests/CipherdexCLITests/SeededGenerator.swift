/// SplitMix64: a small, fast random generator whose whole sequence follows from its seed, for
/// tests that must be reproducible (`PDFMutator`, the differential tests). Not for secrets.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose outputs all follow from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random integer in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count {
            withUnsafeBytes(of: next()) { result.append(contentsOf: $0) }
        }
        return Array(result.prefix(count))
    }
}
