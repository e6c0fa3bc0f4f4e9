/// A deterministic stream of words: "the", "patient", "a" often, prefixes of each other, folded
/// forms ("ete" is what "Été" is indexed as), and `w0`…`w3999` in a skewed mix.
struct SeededWords {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }

    /// A number in 0..<bound.
    mutating func number(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func word() -> String {
        let fixed = ["the", "patient", "patients", "patiently", "pat", "path", "a", "ab", "abc", "été", "eté", "x"]
        let roll = next() % 100
        if roll < 30 { return fixed[Int(next() % UInt64(fixed.count))] }
        // Skewed: small numbers far more often than large ones.
        let bound = [10, 100, 1_000, 4_000][Int(next() % 4)]
        return "w\(next() % UInt64(bound))"
    }
}
