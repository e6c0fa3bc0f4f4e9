import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class RecoveryKeyTests: XCTestCase {
    func testFormattedKeyReadsBackAsTheSameKey() throws {
        for _ in 0..<50 {
            let key = RecoveryKey.generate()
            let text = key.formatted
            XCTAssertNotNil(
                text.range(of: "^([0-9A-HJKMNP-TV-Z]{5}-){12}[0-9A-HJKMNP-TV-Z]{5}$", options: .regularExpression), text
            )
            XCTAssertTrue(try RecoveryKey(parsing: text).key.matches(key.key))
        }
    }

    func testCaseSpacesDashesAndLookalikeLettersDoNotMatter() throws {
        let key = RecoveryKey.generate()
        let text = key.formatted
        let typed = text.lowercased().replacingOccurrences(of: "-", with: " ")
            .replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "l")
        XCTAssertTrue(try RecoveryKey(parsing: "  " + typed + "\n").key.matches(key.key))
        XCTAssertTrue(try RecoveryKey(parsing: text.replacingOccurrences(of: "-", with: "")).key.matches(key.key))
    }

    func testEveryMistypedCharacterNamesItsGroup() throws {
        let key = RecoveryKey.generate()
        let characters = Array(key.formatted.replacingOccurrences(of: "-", with: ""))
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        for position in characters.indices {
            for replacement in alphabet where replacement != characters[position] {
                var typed = characters
                typed[position] = replacement
                do {
                    _ = try RecoveryKey(parsing: String(typed))
                    XCTFail("a mistyped character at \(position) was accepted")
                } catch KeyError.recoveryKeyGroupMistyped(let group) {
                    XCTAssertEqual(group, position / 5 + 1, "position \(position)")
                }
            }
        }
    }

    func testMalformedTextIsRefusedWithoutEchoingIt() {
        let text = RecoveryKey.generate().formatted
        for bad in [
            String(text.dropLast()), text + "A", text.replacingOccurrences(of: "A", with: "U") + "U", "", "hello!",
        ] {
            do {
                _ = try RecoveryKey(parsing: bad)
                XCTFail("accepted \(bad)")
            } catch let error as KeyError {
                if case .recoveryKeyGroupMistyped = error { continue }
                guard case .recoveryKeyMalformed = error else { return XCTFail("\(error)") }
                XCTAssertFalse(error.localizedDescription.contains(text.prefix(5)), "the message never repeats the key")
            } catch {
                XCTFail("\(error)")
            }
        }
    }

    func testRecoveryKeyFileIsRead() throws {
        let key = RecoveryKey.generate()
        let path = TestSupport.temporaryPath("recovery.txt")
        try (key.formatted + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertTrue(try RecoveryKey(contentsOfFile: path).key.matches(key.key))
        XCTAssertThrowsError(try RecoveryKey(contentsOfFile: path + ".missing")) { error in
            guard case KeyError.unreadable = error else { return XCTFail("\(error)") }
        }
    }
}
