import CipherdexPDFWriter

/// The tests' reproducible generator (SplitMix64, shared with the sample corpus and benchmarks).
typealias SplitMix64 = SampleGenerator

/// The name the document tests use.
typealias SeededGenerator = SampleGenerator
