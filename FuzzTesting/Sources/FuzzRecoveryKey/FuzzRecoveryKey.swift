// libFuzzer target: the recovery-key parser (FuzzTesting/README.md).
import FuzzSupport

@testable import CipherdexStore

/// Any bytes: parsing either throws `KeyError` or gives a key whose printed form parses back to
/// the same key.
private func fuzzRecoveryKey(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let key: RecoveryKey
    do {
        key = try RecoveryKey(parsingUTF8: bytes)
    } catch is KeyError {
        return 0
    } catch {
        fatalError("recovery-key parser threw a non-KeyError: \(error)")
    }
    guard let again = try? RecoveryKey(parsing: key.formatted), again.key.matches(key.key) else {
        fatalError("accepted recovery key does not round-trip through its printed form")
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzRecoveryKey`.
@main
enum FuzzRecoveryKeyMain {
    static func main() { runFuzzer(fuzzRecoveryKey) }
}
