// libFuzzer target: metadata-file parsing and validation (FuzzTesting/README.md).
import Foundation
import FuzzSupport

@testable import CipherdexStore

/// Any bytes: `StoreMetadata.parse` either throws `EncryptionError` or returns metadata whose
/// file encoding (as `seal` writes it, checksum kept) parses back to the same metadata.
private func fuzzMetadata(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let metadata: StoreMetadata
    do {
        metadata = try StoreMetadata.parse(bytes)
    } catch is EncryptionError {
        return 0
    } catch {
        fatalError("metadata parser threw a non-EncryptionError: \(error)")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    guard let encoded = try? encoder.encode(metadata), let again = try? StoreMetadata.parse(Array(encoded)),
        again == metadata
    else { fatalError("accepted metadata does not round-trip") }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzMetadata`.
@main
enum FuzzMetadataMain {
    static func main() { runFuzzer(fuzzMetadata) }
}
