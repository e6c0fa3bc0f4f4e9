import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Every error message has one style: it starts in lower case (unless with an acronym such as
/// `SQLite`), has no trailing period, and is one line — so it reads the same alone and after a
/// prefix (`could not write the index: …`, `cipherdex: error: name: …`).
final class ErrorMessageStyleTests: XCTestCase {
    private let samples: [any LocalizedError] = [
        SearchQueryError.empty, SearchQueryError.tooLong(length: 2000, limit: 1000),
        SearchQueryError.unterminatedQuote(position: 3), SearchQueryError.danglingOperator(position: 1),
        SearchQueryError.bareWildcard(position: 1), SearchQueryError.onlyExclusions,
        SearchQueryError.exclusionInAlternative(position: 4), SearchQueryError.noSearchableTerms,
        SearchQueryError.tooManyTerms(count: 65, limit: 64), SearchQueryError.unsupportedWildcard(position: 1),
        SearchQueryError.markOnOperator(position: 7),
        BM25.MatchInfoError.malformed(count: 4),
        AttachmentError.notFound(id: "a1"), AttachmentError.badHeader(id: "a1", reason: "short"),
        AttachmentError.unsupportedVersion(id: "a1", version: 9),
        AttachmentError.headerAuthenticationFailed(id: "a1"),
        AttachmentError.truncated(id: "a1", expectedBytes: 10, actualBytes: 5),
        AttachmentError.trailingData(id: "a1", expectedBytes: 5, actualBytes: 10),
        AttachmentError.chunkAuthenticationFailed(id: "a1", chunkIndex: 2),
        AttachmentError.contentHashMismatch(id: "a1"),
        AttachmentError.sourceChanged(path: "/x", expectedBytes: 10, readBytes: 5),
        AttachmentError.sourceSizeUnknown(path: "/proc/cpuinfo"), AttachmentError.sourceNotFound(path: "/x"),
        AttachmentError.sourceUnreadable(path: "/x", reason: "permission denied"),
        RegularFileError.sizeUnknown(path: "/proc/cpuinfo"),
        StoreError.fileTooLarge(path: "/s/store.db"), SearchError.unsupportedFileType(""),
        AttachmentError.heldByFeature(id: "a1", feature: "search"),
        StoreAlreadyExists(path: "/s"),
        AttachmentError.rangeOutOfBounds(id: "a1", range: 0..<20, length: 10),
        AttachmentError.io(id: "a1", operation: "read", errno: EIO),
        ExtractionError.locked, ExtractionError.damaged(reason: "no trailer"), ExtractionError.timedOut(seconds: 30),
        ExtractionError.memoryLimitExceeded(bytes: 1 << 30), ExtractionError.helperCrashed(signal: 9, exitStatus: nil),
        ExtractionError.helperCrashed(signal: nil, exitStatus: 3), ExtractionError.helperUnavailable(reason: "missing"),
        ExtractionError.unsupportedFormat("xyz"),
        ExtractionError.libraryUnavailable(reason: "libpoppler-glib.so.8 could not be loaded"),
        ExtractionError.imageTooLarge(
            page: 2, width: 100_000, height: 100_000, neededBytes: 1 << 40, availableBytes: 1 << 30),
        ExtractionError.imageTooLarge(
            page: 1, width: 25_000, height: 25_000, neededBytes: 2_500_000_000, availableBytes: 1 << 30),
        StoreError.storeCorrupted(reason: "bad page"), StoreError.storeLocked(path: "/s"), StoreError.closed,
        StoreError.notAStore(path: "/s", reason: "empty"), StoreError.diskFull(path: "/s"),
        StoreError.insideTransaction(operation: "verify()"),
        StoreError.invalidPath(path: "", reason: "the path is empty"),
        StoreError.parentFolderMissing(path: "/var/lib/myapp/store", parent: "/var/lib/myapp"),
        StoreError.invalidConfiguration(setting: "maximumReaders", reason: "it must be at least 1 (it is 0)"),
        StoreError.classifying(SystemError(operation: "rmdir", path: "/s/staging/x", errno: EBUSY)),
        StoreError.classifying(SystemError(operation: "rename", path: "/s/attachments/a", errno: EXDEV)),
        StoreError.classifying(SystemError(operation: "open", path: "/s/metadata.json", errno: EMFILE)),
        StoreError.classifying(SystemError(operation: "open", path: "/s/metadata.json", errno: ENFILE)),
        StoreError.classifying(SystemError(operation: "mmap", path: "/s/store.db-shm", errno: ENOMEM)),
        DatabaseError.sqlite(
            code: 14, extendedCode: 14, message: "unable to open database file", systemErrno: EMFILE,
            path: "/s/store.db"),
        EncryptionError.keyRequired, EncryptionError.keyUnexpected, EncryptionError.keyInvalid,
        EncryptionError.unsupportedScheme(found: 9, supported: 8), EncryptionError.metadataCorrupt(reason: "bad"),
        DocumentError.notAnObject, DocumentError.unknownCollection("c"), DocumentError.transactionNotActive,
        DocumentError.duplicateID(collection: "c", id: "a"), DocumentError.invalidID(reason: "the id is empty"),
        SearchError.invalidUID(""), SearchError.invalidUID("a\nb"), SearchError.notAFolder("/x"),
        SearchError.documentNotFound(uid: "u"),
        SearchError.unreadable(path: "/x", reason: "gone"), SearchError.extractionHelperMissing(reason: "build it"),
        SearchError.ocrLanguageMissing(language: "fra", package: "tesseract-ocr-fra"),
        SearchError.invalidOCRLanguage("../x"),
        SearchError.invalidOption(name: "maximumResults", reason: "it must be at least 1 (it is 0)"),
        KeyError.invalidLength(3), KeyError.emptyPassphrase, KeyError.invalidHex("odd"),
        KeyError.unreadable(source: "/k", reason: "gone"), KeyError.unsupportedCost("ops 99"),
        StoreConversionError.unrecordedAttachmentFile(
            path: "/s/attachments/x", reason: "its name is not an attachment id"),
        StoreConversionError.dataFolderElsewhere(path: "/s/staging"),
    ]

    func testEveryMessageHasOneStyle() {
        for error in samples {
            guard let message = error.errorDescription else {
                XCTFail("\(error) has no description")
                continue
            }
            let first = Array(message.prefix(2))
            XCTAssertFalse(
                first.count == 2 && first[0].isUppercase && !first[1].isUppercase,
                "starts with a capital: \(message)")
            XCTAssertFalse(message.hasSuffix("."), "ends with a period: \(message)")
            XCTAssertFalse(message.contains("\n"), "spans lines: \(message)")
        }
    }

    /// Cancellation is Swift's own `CancellationError`, never wrapped (callers test
    /// `is CancellationError`): the one error whose description is not one of these, and README,
    /// where it says every error is a `LocalizedError` with one line, says so.
    func testCancellationIsSwiftsOwnErrorAndReadmeSaysSo() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await Store.deleteAsync(at: TestSupport.temporaryPath())
        }
        do {
            try await task.value
            XCTFail("a cancelled async form must throw")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
            XCTAssertFalse(error is LocalizedError)
        }
        let readme = try String(contentsOfFile: FixturePackage.repositoryRoot + "/README.md", encoding: .utf8)
        let paragraph = readme.components(separatedBy: "\n\n").first { $0.contains("Every error Cipherdex throws") }
        XCTAssertTrue(paragraph?.contains("`CancellationError`, not wrapped") == true, paragraph ?? "no paragraph")
    }
}
