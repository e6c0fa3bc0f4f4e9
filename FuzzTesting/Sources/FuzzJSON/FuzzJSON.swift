// libFuzzer target: the JSON parser and canonical encoding (FuzzTesting/README.md).
import FuzzSupport

@testable import CipherdexStore

/// Any bytes: parsing either throws `DocumentError` or gives a value whose canonical encoding
/// parses back to the same value and re-encodes to the same bytes.
private func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let value: JSONValue
    do {
        value = try JSONValue(parsing: bytes)
    } catch is DocumentError {
        return 0
    } catch {
        fatalError("JSON parser threw a non-DocumentError: \(error)")
    }
    let canonical = value.canonicalBytes
    guard let again = try? JSONValue(parsing: canonical) else { fatalError("canonical JSON does not parse") }
    guard again == value else { fatalError("parse → encode → parse changed the value") }
    guard again.canonicalBytes == canonical else { fatalError("canonical encoding is not stable") }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzJSON`.
@main
enum FuzzJSONMain {
    static func main() { runFuzzer(fuzzJSON) }
}
