import Cipherdex
import CipherdexPDFWriter
import Foundation

/// The inputs parent and child share, all derived from fixed seeds so the parent knows exactly
/// what each acknowledged write stored: key files, attachment sources, library files and the
/// documents' JSON. Written once per run into `directory` by the parent.
struct Fixtures: Sendable {
    /// The folder holding the files.
    let directory: String

    /// Small attachment sources (1 to 48 KiB).
    static let smallCount = 40
    /// Large attachment sources.
    static let largeCount = 2
    /// Bytes in each large attachment: more than `(writebackLag + 1) × writebackBytes` (24 MiB),
    /// so kills also land while the writer waits for write-back and drops written ranges from
    /// the page cache (issue 16).
    static let largeLength = 36 << 20
    /// Library files (even: two-page PDFs, odd: text files).
    static let libraryCount = 8
    /// Characters in the text of each large document.
    static let largeDocumentLength = 1_500_000

    /// The key every store is created with.
    var keyA: String { directory + "/key-a" }
    /// The key `rekey` alternates with.
    var keyB: String { directory + "/key-b" }
    /// A key that opens nothing.
    var wrongKey: String { directory + "/key-wrong" }

    /// The source file of small attachment `index`.
    func small(_ index: Int) -> String { directory + "/small-\(index)" }
    /// The source file of large attachment `index`.
    func large(_ index: Int) -> String { directory + "/large-\(index)" }
    /// The library file `index`.
    func library(_ index: Int) -> String { directory + "/" + Fixtures.libraryName(index) }

    /// The file name (and so the UID) of library file `index`.
    static func libraryName(_ index: Int) -> String { index % 2 == 0 ? "lib-\(index).pdf" : "lib-\(index).txt" }
    /// The word only library file `index` contains.
    static func libraryWord(_ index: Int) -> String { "zqtok\(index)x" }
    /// The pages of library file `index`.
    static func libraryPages(_ index: Int) -> [String] {
        let word = libraryWord(index)
        if index % 2 == 0 {
            return [
                "First page of document \(index) about \(word) and running engines.", "Second page, \(word) again.",
            ]
        }
        return ["Notes \(index): the \(word) keeps running through the text file."]
    }

    /// Writes every fixture file.
    func write() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keys: [(String, UInt64)] = [(keyA, 0xA), (keyB, 0xB), (wrongKey, 0xC)]
        for (path, seed) in keys { try Self.write(Self.bytes(count: 32, seed: seed), to: path) }
        for index in 0..<Self.smallCount {
            try Self.write(
                Self.bytes(count: 1024 + (index * 1237) % (47 << 10), seed: 100 + UInt64(index)), to: small(index))
        }
        for index in 0..<Self.largeCount {
            try Self.write(
                Self.bytes(count: Self.largeLength + index * 4099, seed: 200 + UInt64(index)), to: large(index))
        }
        for index in 0..<Self.libraryCount {
            let pages = Self.libraryPages(index)
            let bytes = index % 2 == 0 ? makePDF(pages: pages, title: "Document \(index)") : Array(pages[0].utf8)
            try Self.write(bytes, to: library(index))
        }
    }

    /// Opens a configuration of the store at `path` with the key in `keyFile` (nil: no key).
    static func configuration(_ path: String, keyFile: String?, create: Bool = true) -> StoreConfiguration {
        var provider: KeyProvider?
        if let keyFile {
            provider = { @Sendable in try EncryptionKey.raw(contentsOfFile: keyFile) }
        }
        return StoreConfiguration(path: path, keyProvider: provider, createIfMissing: create)
    }

    /// The JSON of small document `index`.
    static func smallDocument(_ index: Int) -> Data {
        Data(#"{"i":\#(index),"kind":"small","text":"small document \#(index) ✓","n":\#(index * 7).25}"#.utf8)
    }

    /// The JSON of large document `index` (`largeDocumentLength` characters of text).
    static func largeDocument(_ index: Int) -> Data {
        let letters = Array("abcdefghijklmnopqrstuvwxyz ".utf8)
        var text = bytes(count: largeDocumentLength, seed: 300 + UInt64(index))
        for position in text.indices { text[position] = letters[Int(text[position]) % letters.count] }
        return Data(#"{"i":\#(index),"kind":"large","text":""#.utf8) + Data(text) + Data(#""}"#.utf8)
    }

    /// The JSON of the documents `docRemove` removes.
    static func removableDocument(_ index: Int) -> Data {
        Data(#"{"i":\#(index),"kind":"removable"}"#.utf8)
    }

    /// `count` pseudo-random bytes from `seed` (SplitMix64).
    static func bytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                for shift in stride(from: 0, to: 64, by: 8) where offset < count {
                    buffer[offset] = UInt8(truncatingIfNeeded: z >> UInt64(shift))
                    offset += 1
                }
            }
        }
        return result
    }

    /// Writes `bytes` to `path` (owner-only).
    static func write(_ bytes: [UInt8], to path: String) throws {
        guard
            FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else { throw HarnessError.setup("cannot write \(path)") }
    }
}
