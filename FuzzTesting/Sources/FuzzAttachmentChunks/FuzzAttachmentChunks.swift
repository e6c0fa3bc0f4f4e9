// libFuzzer target: opening a sealed attachment file and its chunks (FuzzTesting/README.md).
import Foundation
import FuzzSupport

@testable import CipherdexStore

/// The attachments master key every seed was sealed with (a fixed test key, not a secret).
private let masterKey = SecureBytes(copying: (0..<32).map { UInt8($0) &* 7 &+ 3 })
/// The attachment id every seed is bound to.
private let attachmentID = "fuzz-attachment"

/// The plaintext of every seed: byte `i` of any attachment is `pattern(i)`, so whatever length an
/// accepted file claims, the bytes it must give back are known.
private func pattern(_ range: Range<UInt64>) -> [UInt8] {
    range.map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ ($0 >> 8)) }
}

/// The one file every input is written to (a fresh folder per process).
private let attachmentPath: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cipherdex-fuzz-chunks-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("attachment").path
}()

/// Replaces the header tag of `file` with the right one for its (possibly mutated) fields, so that
/// the reader trusts the fuzzed algorithm, chunk size and length and goes on to the chunks.
private func resign(_ file: inout [UInt8]) {
    let size = AttachmentCipherFormat.headerBytes
    guard file.count >= size,
        let header = try? AttachmentCipherFormat.Header.decode(Array(file[0..<size]), attachmentID: attachmentID)
    else { return }
    let keys = AttachmentCipherFormat.deriveKeys(masterKey: masterKey, attachmentID: attachmentID, salt: header.salt)
    let tag = AttachmentCipherFormat.headerTag(for: header, attachmentID: attachmentID, headerKey: keys.headerKey)
    file.replaceSubrange(AttachmentCipherFormat.headerFieldsBytes..<size, with: tag)
}

/// First byte: bit 0 re-signs the header (see `resign`), so mutations reach chunk opening with a
/// header the reader trusts. The rest is the attachment file. Opening it and reading it whole and
/// in three ranges either throws `AttachmentError` or gives exactly the pattern's bytes: a
/// damaged, truncated, extended, reordered or re-sized chunk stream is never wrong bytes.
private func fuzzAttachmentChunks(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard let mode = input.first else { return 0 }
    var file = Array(input.dropFirst())
    if mode & 1 == 1 { resign(&file) }
    guard FileManager.default.createFile(atPath: attachmentPath, contents: Data(file)) else {
        fatalError("cannot write \(attachmentPath)")
    }
    let reader: AttachmentCipherReader
    do {
        reader = try AttachmentCipherReader(
            path: attachmentPath, attachmentID: attachmentID, masterKey: masterKey,
            availableAlgorithms: Sodium.ChunkAEAD.Algorithm.available)
    } catch {
        return 0
    }
    do {
        var whole: [UInt8] = []
        try reader.readAll { whole.append(contentsOf: $0) }
        guard whole == pattern(0..<reader.length) else { fatalError("readAll gave wrong bytes") }
    } catch is AttachmentError {
    } catch {
        fatalError("readAll threw a non-AttachmentError: \(error)")
    }
    let length = reader.length
    let middle = length / 2
    let span = UInt64(mode >> 1) * UInt64(max(reader.chunkSize / 8, 1))
    for range in [0..<length, middle..<min(length, middle &+ span), (length - min(length, 1))..<length] {
        do {
            guard try reader.read(range: range) == pattern(range) else { fatalError("read(range:) gave wrong bytes") }
        } catch {
            // Typed by the signature (`throws(AttachmentError)`).
        }
    }
    return 0
}

/// Writes the committed seeds into `folder`: a few attachments of both algorithms, several chunk
/// sizes and lengths (the empty one, one byte, one chunk exactly, several chunks), sealed with
/// `masterKey`, each with mode byte 0 and 1.
private func writeSeeds(into folder: String) throws {
    let shapes: [(Sodium.ChunkAEAD.Algorithm, Int, UInt64)] = [
        (.xchacha20poly1305, 16, 0), (.xchacha20poly1305, 16, 1), (.xchacha20poly1305, 16, 16),
        (.xchacha20poly1305, 7, 40), (.aes256gcm, 64, 200), (.aes256gcm, 1, 5), (.aes256gcm, 1000, 999),
    ]
    for (number, (algorithm, chunkSize, length)) in shapes.enumerated()
    where Sodium.ChunkAEAD.Algorithm.available.contains(algorithm) {
        let fd = try AttachmentFileIO.openForWriting(path: attachmentPath, id: attachmentID)
        let writer = try AttachmentCipherWriter(
            fileDescriptor: fd, ownsFileDescriptor: true, attachmentID: attachmentID, masterKey: masterKey,
            chunkSize: chunkSize, algorithm: algorithm)
        try writer.write(pattern(0..<length))
        _ = try writer.finish(synchronize: false)
        let sealed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: attachmentPath)))
        var whole: [UInt8] = []
        try AttachmentCipherReader(path: attachmentPath, attachmentID: attachmentID, masterKey: masterKey)
            .readAll { whole.append(contentsOf: $0) }
        guard whole == pattern(0..<length) else { fatalError("seed \(number) does not read back") }
        for mode: UInt8 in [0, 1] {
            try Data([mode | UInt8(number << 1)] + sealed).write(
                to: URL(fileURLWithPath: "\(folder)/seed\(number)-\(mode)"))
        }
    }
}

/// The fuzzer's entry: libFuzzer over `fuzzAttachmentChunks`; with `CIPHERDEX_FUZZ_WRITE_SEEDS`
/// set to a folder, writes the seed corpus there instead.
@main
enum FuzzAttachmentChunksMain {
    static func main() {
        if let folder = ProcessInfo.processInfo.environment["CIPHERDEX_FUZZ_WRITE_SEEDS"] {
            do { try writeSeeds(into: folder) } catch { fatalError("cannot write seeds: \(error)") }
            exit(0)
        }
        runFuzzer(fuzzAttachmentChunks)
    }
}
