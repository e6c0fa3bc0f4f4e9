import CipherdexTestSupport
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Helpers shared by the store tests: temporary directories, keys and raw file snapshots.
enum TestSupport {
    /// This process's open descriptors of `path` (a connection holds one on its database).
    static func openDescriptors(of path: String) -> Int {
        let directory = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == path
        }
        .count
    }

    /// The newest schema version of a store opened with search (the store's migrations and
    /// search's).
    static var latestSchemaVersion: Int {
        Migrator(migrations: Store.coreFeature.migrations + SearchFeature.feature.migrations).latestVersion
    }

    /// A fresh directory path under the system temporary folder (not created).
    static func temporaryPath(_ name: String = "store") -> String {
        TemporaryDirectory.make(prefix: "cipherdex-tests-") + "/" + name
    }

    /// 32 fixed bytes derived from `seed`.
    static func rawKeyBytes(_ seed: UInt8) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(seed) &* 31 &+ 1) }
    }

    /// A provider returning a raw key made from `seed`.
    static func rawKey(_ seed: UInt8) -> KeyProvider {
        let bytes = rawKeyBytes(seed)
        return { try EncryptionKey.raw(bytes) }
    }

    /// A provider returning a passphrase key.
    static func passphrase(_ text: String) -> KeyProvider {
        { try EncryptionKey.passphrase(text) }
    }

    /// A configuration with the cheapest Argon2id cost, for speed.
    static func configuration(_ path: String, key: KeyProvider?) -> StoreConfiguration {
        StoreConfiguration(path: path, keyProvider: key, passphraseCost: .minimumForTesting)
    }

    /// `configuration(_:key:)` with search, as `import Cipherdex`'s conversions pass it: for the
    /// store's internal calls (`Store.convert`) on stores that hold a search index.
    static func searchConfiguration(_ path: String, key: KeyProvider?) -> StoreConfiguration {
        var configuration = configuration(path, key: key)
        configuration.features = [SearchFeature.feature]
        return configuration
    }

    /// Every regular file below `path`, relative path to exact bytes.
    static func snapshot(_ path: String) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return result }
        while let relative = enumerator.nextObject() as? String {
            let full = path + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = Array(FileManager.default.contents(atPath: full) ?? Data())
            } else {
                result[relative + "/"] = []
            }
        }
        return result
    }

    /// Copies a directory (a store captured while open is what a crash leaves behind).
    static func copyDirectory(_ source: String, to destination: String) {
        try! FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for (relative, bytes) in snapshot(source) {
            let target = destination + "/" + relative
            if relative.hasSuffix("/") {
                try! FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            } else {
                try! FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: target, contents: Data(bytes))
            }
        }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var index = 0
                let last = hay.count - pin.count
                while index <= last {
                    if hay[index] == first && memcmp(hay.baseAddress! + index, pin.baseAddress!, pin.count) == 0 {
                        return true
                    }
                    index += 1
                }
                return false
            }
        }
    }

    /// Files under `path` whose bytes contain any of `needles`, with the needle's index.
    static func filesContaining(_ needles: [[UInt8]], under path: String) -> [String] {
        var hits: [String] = []
        for (relative, bytes) in snapshot(path) {
            for (index, needle) in needles.enumerated() where contains(bytes, needle) {
                hits.append("\(relative) contains needle #\(index)")
            }
        }
        return hits.sorted()
    }

    /// Flips one bit of a file in place.
    static func flipBit(_ path: String, at offset: Int, bit: UInt8 = 0x01) {
        var bytes = Array(FileManager.default.contents(atPath: path)!)
        bytes[offset] ^= bit
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsExactly<E: Error & Equatable, T>(
    _ expected: E, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
    } catch let error as E {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` throws an error of type E whose case name is `name`.
func XCTAssertThrowsCase<T>(
    _ name: String, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected \(name), nothing was thrown", file: file, line: line)
    } catch let error as EncryptionError {
        XCTAssertEqual(error.name, name, "\(error)", file: file, line: line)
    } catch let error as StoreError {
        XCTAssertEqual(error.name, name, "\(error)", file: file, line: line)
    } catch let error as BackupError {
        XCTAssertEqual(error.name, name, "\(error)", file: file, line: line)
    } catch let error as KeyError {
        // Its case's name, as the CLI reports it.
        XCTAssertEqual(
            String(describing: error).prefix { $0 != "(" }, Substring(name), "\(error)", file: file, line: line)
    } catch {
        XCTFail("expected \(name), got \(error)", file: file, line: line)
    }
}
