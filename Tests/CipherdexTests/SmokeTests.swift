import XCTest
@testable import Cipherdex
final class SmokeTests: XCTestCase { func testSodium() { XCTAssertEqual(SecureBytes.random(count: 32).count, 32) } }
