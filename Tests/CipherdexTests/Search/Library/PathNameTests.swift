import Foundation
import XCTest

@testable import Cipherdex

/// `PathName.lastComponent(of:)`: what `NSString.lastPathComponent` gives, without its trap on
/// `///o//` (found by `FuzzCLIArguments`: `cipherdex add s ///o//` died of SIGILL).
final class PathNameTests: XCTestCase {
    func testLastComponentMatchesFoundationWhereFoundationWorks() {
        for path in [
            "", "/", "a", "a/", "a//", "/a", "/a/b", "dir/file.pdf", "dir/file.pdf/", "//a//", "o//", "./x",
            "ü/é.pdf",
        ] {
            XCTAssertEqual(PathName.lastComponent(of: path), (path as NSString).lastPathComponent, path)
        }
    }

    func testPathsThatTrapInFoundation() {
        XCTAssertEqual(PathName.lastComponent(of: "///o//"), "o")
        XCTAssertEqual(PathName.lastComponent(of: "////////////////o////////"), "o")
        XCTAssertEqual(PathName.lastComponent(of: "///dir/name.pdf//"), "name.pdf")
        XCTAssertEqual(PathName.lastComponent(of: "////"), "/")
    }
}
