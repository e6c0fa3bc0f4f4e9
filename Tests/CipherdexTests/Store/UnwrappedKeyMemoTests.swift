import Foundation
import XCTest

@testable import CipherdexStore

/// Restore's writable fallback opens a backup twice; the data key the first open unwrapped is
/// kept for the second, so a passphrase's Argon2id runs once (review 27, finding 3).
final class UnwrappedKeyMemoTests: XCTestCase {
    private struct NotAsked: Error {}

    /// A second open with the same memo and unchanged metadata neither asks for the key nor
    /// derives it; once the metadata changed, the key is unwrapped again.
    func testASecondOpenOfTheSameMetadataReusesTheUnwrappedKey() throws {
        let path = TestSupport.temporaryPath("memo")
        try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("right"))).close()
        var configuration = TestSupport.configuration(path, key: TestSupport.passphrase("right"))
        configuration.unwrappedKeyMemo = UnwrappedKeyMemo()
        let first = try Store.open(configuration)
        XCTAssertEqual(first.openedKeyslot, 1)
        first.close()
        configuration.keyProvider = { throw NotAsked() }
        let second = try Store.open(configuration)
        XCTAssertEqual(second.openedKeyslot, 1)
        try second.addKey(TestSupport.rawKey(2))
        second.close()
        XCTAssertThrowsError(try Store.open(configuration)) { XCTAssertTrue($0 is NotAsked, "\($0)") }
    }
}
