// libFuzzer target: attachment header decoding (FuzzTesting/README.md).
import FuzzSupport

@testable import CipherdexStore

/// Any bytes, padded or cut to the 54-byte header: decoding either throws `AttachmentError` or
/// gives a header that encodes back to the same bytes; the size arithmetic on its unauthenticated
/// fields never traps.
private func fuzzAttachmentHeader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let size = AttachmentCipherFormat.headerBytes
    bytes = Array((bytes + [UInt8](repeating: 0, count: size)).prefix(size))
    let header: AttachmentCipherFormat.Header
    do {
        header = try AttachmentCipherFormat.Header.decode(bytes, attachmentID: "fuzz")
    } catch {
        return 0
    }
    guard header.encoded == bytes else { fatalError("header does not re-encode to its bytes") }
    if header.chunkSize > 0 {
        let chunkSize = UInt64(header.chunkSize)
        _ = AttachmentCipherFormat.expectedFileSize(plaintextLength: header.plaintextLength, chunkSize: chunkSize)
        _ = AttachmentCipherFormat.chunkCount(plaintextLength: header.plaintextLength, chunkSize: chunkSize)
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzAttachmentHeader`.
@main
enum FuzzAttachmentHeaderMain {
    static func main() { runFuzzer(fuzzAttachmentHeader) }
}
