import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// What `SearchError`'s messages say: an invalid UID names the rule it breaks, and echoes at
/// most 80 of its characters on one line.
final class SearchErrorTests: XCTestCase {
    func testInvalidUIDSaysWhy() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let long = String(repeating: "x", count: 5000)
        let cases: [(String, String)] = [
            ("", #""" is not a valid document UID: it is empty"#),
            (
                long,
                "\(String(repeating: "x", count: 80).debugDescription)… is not a valid document UID: "
                    + "it is 5000 characters long, more than the limit of 1024"
            ),
            ("a\nb", #""a\nb" is not a valid document UID: it contains the control character U+000A"#),
            ("tab\there", #""tab\there" is not a valid document UID: it contains the control character U+0009"#),
        ]
        for (uid, message) in cases {
            XCTAssertThrowsError(try store.library.add(data: Data("text".utf8), uid: uid, fileExtension: "txt")) {
                XCTAssertEqual($0 as? SearchError, .invalidUID(uid))
                XCTAssertEqual($0.localizedDescription, message)
            }
        }
        // 1024 characters is fine.
        try store.library.add(data: Data("text".utf8), uid: String(repeating: "y", count: 1024), fileExtension: "txt")
    }

    func testInvalidUIDOfAValidUIDStatesTheRule() {
        XCTAssertEqual(
            SearchError.invalidUID("fine").errorDescription,
            #""fine" is not a valid document UID: a UID is 1–1024 characters without control characters"#)
    }
}
