// libFuzzer target: the key-file, passphrase-file and recovery-key-file readers behind the CLI's
// `--key-file`, `--passphrase-file` and `--recovery-key-file` (FuzzTesting/README.md).
import Foundation
import FuzzSupport

@testable import CipherdexStore

/// The one file every input is written to (a fresh folder per process).
private let keyFilePath: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cipherdex-fuzz-keys-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("key").path
}()

/// What `--key-file` must make of `bytes`, decided independently of `SecureBytes.decodingHex`:
/// 32 bytes are the key; otherwise 64 hex digits between optional spaces, tabs and line breaks.
private func expectedRawKey(_ bytes: [UInt8]) -> [UInt8]? {
    if bytes.count == 32 { return bytes }
    let spaces: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    var text = bytes[...]
    while let first = text.first, spaces.contains(first) { text = text.dropFirst() }
    while let last = text.last, spaces.contains(last) { text = text.dropLast() }
    guard text.count == 64 else { return nil }
    func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    var key: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
        key.append(high << 4 | low)
        index += 2
    }
    return key
}

/// What `--passphrase-file` must make of `bytes`: the bytes without one trailing `\n`, `\r\n`
/// or `\r`; nil (refused) when nothing is left.
private func expectedPassphrase(_ bytes: [UInt8]) -> [UInt8]? {
    var text = bytes[...]
    if text.last == 0x0A { text = text.dropLast() }
    if text.last == 0x0D { text = text.dropLast() }
    return text.isEmpty ? nil : Array(text)
}

/// The secret bytes of `key`.
private func secretBytes(_ key: EncryptionKey) -> [UInt8] {
    key.secret.withUnsafeBytes { Array($0) }
}

/// Any bytes as the file's content: each reader throws only `KeyError` or accepts exactly what
/// the independent reference above accepts, with the same secret bytes; an accepted recovery
/// key prints back to a key that parses to the same key.
private func fuzzKeyFiles(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard FileManager.default.createFile(atPath: keyFilePath, contents: Data(bytes)) else {
        fatalError("cannot write \(keyFilePath)")
    }
    let fits = bytes.count <= 4096
    do {
        let key = try EncryptionKey.raw(contentsOfFile: keyFilePath)
        guard fits, key.kind == .raw, let expected = expectedRawKey(bytes), secretBytes(key) == expected else {
            fatalError("--key-file accepted \(bytes.count) bytes the reference refuses or decodes otherwise")
        }
    } catch is KeyError {
        if fits, expectedRawKey(bytes) != nil { fatalError("--key-file refused a valid key file") }
    } catch {
        fatalError("--key-file threw a non-KeyError: \(error)")
    }
    let passphraseFits = bytes.count <= 64 * 1024
    do {
        let key = try EncryptionKey.passphrase(contentsOfFile: keyFilePath)
        guard passphraseFits, key.kind == .passphrase, let expected = expectedPassphrase(bytes),
            secretBytes(key) == expected
        else {
            fatalError("--passphrase-file accepted \(bytes.count) bytes the reference refuses or reads otherwise")
        }
    } catch is KeyError {
        if passphraseFits, expectedPassphrase(bytes) != nil { fatalError("--passphrase-file refused a passphrase") }
    } catch {
        fatalError("--passphrase-file threw a non-KeyError: \(error)")
    }
    do {
        let recovery = try RecoveryKey(contentsOfFile: keyFilePath)
        guard fits, let again = try? RecoveryKey(parsing: recovery.formatted), again.key.matches(recovery.key) else {
            fatalError("--recovery-key-file accepted a key that does not round-trip")
        }
        guard (try? RecoveryKey(parsingUTF8: bytes))?.key.matches(recovery.key) == true else {
            fatalError("--recovery-key-file and the in-memory parser disagree")
        }
    } catch is KeyError {
    } catch {
        fatalError("--recovery-key-file threw a non-KeyError: \(error)")
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzKeyFiles`.
@main
enum FuzzKeyFilesMain {
    static func main() { runFuzzer(fuzzKeyFiles) }
}
