import CPopplerRuntimeABICheck
import Foundation
import XCTest

@testable import CipherdexExtraction

/// The loader of poppler-glib, poppler-cpp, GLib, GIO and cairo (`PopplerLibraries`,
/// `CPopplerRuntime`): every library and function is checked, and a missing one is a typed error
/// naming it, never a crash.
final class PopplerLibrariesTests: XCTestCase {
    private let defaults = PopplerLibraries.defaultSonames

    /// `defaults` with the library at `index` replaced by `soname`.
    private func replacing(_ index: Int, with soname: String) -> [String] {
        var sonames = defaults
        sonames[index] = soname
        return sonames
    }

    private func reason(_ result: Result<Void, ExtractionError>, line: UInt = #line) -> String {
        guard case .failure(let error) = result else {
            XCTFail("loaded", line: line)
            return ""
        }
        guard case .libraryUnavailable(let reason) = error else {
            XCTFail("\(error)", line: line)
            return ""
        }
        XCTAssertEqual(error.name, "libraryUnavailable", line: line)
        return reason
    }

    func testTheDefaultLibrariesLoadWithEveryFunction() throws {
        XCTAssertEqual(
            defaults,
            [
                "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgio-2.0.so.0", "libcairo.so.2", "libpoppler-glib.so.8",
                "libpoppler-cpp.so.0",
            ])
        XCTAssertNoThrow(try PopplerLibraries.check(sonames: defaults).get())
        XCTAssertNoThrow(try PopplerLibraries.api())
        XCTAssertTrue(PopplerLibraries.isLoaded)
        // The declarations were compiled against the real headers (CPopplerRuntimeABICheck).
        XCTAssertEqual(cdx_poppler_abi_checked_functions(), 44)
    }

    func testAMissingLibraryIsATypedErrorNamingIt() {
        let started = ContinuousClock.now
        let message = reason(PopplerLibraries.check(sonames: replacing(4, with: "libcipherdex-missing-poppler.so.8")))
        XCTAssertTrue(message.hasPrefix("libcipherdex-missing-poppler.so.8 could not be loaded"), message)
        XCTAssertTrue(message.contains("install libpoppler-glib8"), message)
        let cpp = reason(PopplerLibraries.check(sonames: replacing(5, with: "libcipherdex-missing-cpp.so.0")))
        XCTAssertTrue(cpp.contains("install libpoppler-cpp0v5"), cpp)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
        let error = ExtractionError.libraryUnavailable(reason: message)
        XCTAssertTrue(
            error.errorDescription?.hasPrefix("the PDF or OCR libraries could not be loaded: libcipherdex-missing") == true)
    }

    func testALibraryWithoutAFunctionIsATypedErrorNamingIt() {
        // libz is a real library without poppler's functions.
        let glib = reason(PopplerLibraries.check(sonames: replacing(4, with: "libz.so.1")))
        XCTAssertEqual(glib, "libz.so.1 has no function poppler_error_quark")
        let cairo = reason(PopplerLibraries.check(sonames: replacing(3, with: "libz.so.1")))
        XCTAssertEqual(cairo, "libz.so.1 has no function cairo_image_surface_create")
        let cpp = reason(PopplerLibraries.check(sonames: replacing(5, with: "libz.so.1")))
        XCTAssertTrue(cpp.hasPrefix("libz.so.1 has no function _ZN7poppler8document18load_from_raw_data"), cpp)
        XCTAssertEqual(
            reason(PopplerLibraries.check(sonames: Array(defaults.prefix(2)))), "2 libraries given, 6 needed")
    }
}
