import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A failing device (`EIO`) is `ioError` naming the path, too many open files or too little
/// memory `resourcesExhausted`, whichever layer saw it — never damage (`storeCorrupted`,
/// `metadataCorrupt`) nor an untyped `system`/`database` error.
final class StoreErrorClassificationTests: XCTestCase {
    func testEIOFromASystemCallIsIOErrorNamingThePath() {
        let error = StoreError.classifying(SystemError(operation: "pread", path: "/s/store.db", errno: EIO))
        XCTAssertEqual(error.name, "ioError")
        XCTAssertTrue(error.errorDescription!.contains("/s/store.db"), error.errorDescription!)
    }

    func testSQLiteIOErrorWithEIOIsIOErrorAndOtherIOErrorsAreNot() {
        let eio = DatabaseError.sqlite(
            code: Connection.ioErrorCode, extendedCode: 266, message: "disk I/O error", systemErrno: EIO,
            path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(eio).name, "ioError")
        XCTAssertTrue(StoreError.classifying(eio).errorDescription!.contains("/s/store.db"))
        let corrupt = DatabaseError.sqlite(
            code: 11, extendedCode: 11, message: "database disk image is malformed", systemErrno: EIO,
            path: "/s/store.db")
        XCTAssertEqual(
            StoreError.classifying(corrupt).name, "storeCorrupted", "a stale errno does not make damage an I/O error")
    }

    /// A write past the file-size limit (`EFBIG`, SIGXFSZ ignored) is `fileTooLarge` naming the
    /// path, from a system call or from SQLite (which reports it as an I/O error with that errno).
    func testEFBIGFromASystemCallOrSQLiteIsFileTooLargeNamingThePath() {
        let system = StoreError.classifying(SystemError(operation: "write", path: "/s/staging/x", errno: EFBIG))
        XCTAssertEqual(system, .fileTooLarge(path: "/s/staging/x"))
        XCTAssertTrue(system.errorDescription!.contains("file-size limit"), system.errorDescription!)
        let database = DatabaseError.sqlite(
            code: Connection.ioErrorCode, extendedCode: 778, message: "disk I/O error", systemErrno: EFBIG,
            path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(database), .fileTooLarge(path: "/s/store.db"))
    }

    /// A mount point in the way (`EBUSY` removing or replacing it, `EXDEV` renaming across one)
    /// is `mountPoint` naming the path and what was being done, never an untyped `system`.
    func testEBUSYAndEXDEVAreMountPointNamingThePathAndTheOperation() {
        let busy = StoreError.classifying(SystemError(operation: "unlink", path: "/s/staging/x", errno: EBUSY))
        XCTAssertEqual(busy.name, "mountPoint")
        XCTAssertTrue(busy.errorDescription!.hasPrefix("cannot remove /s/staging/x: it is a mount point"), "\(busy)")
        let renamed = StoreError.classifying(SystemError(operation: "rename", path: "/s/metadata.json", errno: EBUSY))
        XCTAssertTrue(renamed.errorDescription!.hasPrefix("cannot move a file to /s/metadata.json: "), "\(renamed)")
        let crossing = StoreError.classifying(SystemError(operation: "rename", path: "/s/attachments/a", errno: EXDEV))
        XCTAssertEqual(crossing.name, "mountPoint")
        XCTAssertTrue(
            crossing.errorDescription!.hasPrefix("cannot move a file to /s/attachments/a: it and its source are on "),
            "\(crossing)")
        XCTAssertTrue(crossing.errorDescription!.contains("one file system"), "\(crossing)")
    }

    /// Too many open files (the process's, `EMFILE`, or the system's, `ENFILE`) and too little
    /// memory (`ENOMEM`) from a system call are `resourcesExhausted` naming the path and what
    /// to do, not an untyped `system` error (which an open took for a corrupt metadata file).
    func testEMFILEENFILEAndENOMEMFromASystemCallAreResourcesExhaustedNamingThePath() {
        for (code, wording) in [
            (EMFILE, "ulimit -n"), (ENFILE, "the system has too many files open"), (ENOMEM, "memory"),
        ] {
            let error = StoreError.classifying(SystemError(operation: "open", path: "/s/metadata.json", errno: code))
            XCTAssertEqual(error.name, "resourcesExhausted", "\(error)")
            guard case .resourcesExhausted(let path, _) = error else { continue }
            XCTAssertEqual(path, "/s/metadata.json")
            let message = error.errorDescription ?? ""
            XCTAssertTrue(message.hasPrefix("cannot use /s/metadata.json: open failed: "), message)
            XCTAssertTrue(message.contains(wording), message)
            XCTAssertTrue(message.contains("then retry"), message)
            XCTAssertTrue(message.contains("this is not damage"), message)
        }
    }

    /// SQLite's failed open or input/output with `EMFILE`, `ENFILE` or `ENOMEM` behind it, and
    /// its own `SQLITE_NOMEM`, are `resourcesExhausted` naming the database (they were
    /// `storeCorrupted`); a stale errno beside damage does not make it so.
    func testSQLiteOutOfDescriptorsOrMemoryIsResourcesExhaustedAndAStaleErrnoIsNot() {
        for code in [EMFILE, ENFILE, ENOMEM] {
            let cantOpen = DatabaseError.sqlite(
                code: Connection.cantOpenCode, extendedCode: 14, message: "unable to open database file",
                systemErrno: code, path: "/s/store.db")
            XCTAssertEqual(StoreError.classifying(cantOpen).name, "resourcesExhausted", "\(code)")
            XCTAssertEqual(StoreError.classifyingEnvironment(cantOpen)?.name, "resourcesExhausted", "\(code)")
            XCTAssertTrue(
                StoreError.classifying(cantOpen).errorDescription!.hasPrefix("cannot use /s/store.db: "),
                "\(StoreError.classifying(cantOpen))")
        }
        let noMemory = DatabaseError.sqlite(
            code: Connection.noMemoryCode, extendedCode: 7, message: "out of memory", path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(noMemory).name, "resourcesExhausted")
        let corrupt = DatabaseError.sqlite(
            code: Connection.corruptCode, extendedCode: 11, message: "database disk image is malformed",
            systemErrno: EMFILE, path: "/s/store.db")
        XCTAssertEqual(StoreError.classifying(corrupt).name, "storeCorrupted")
    }

    /// Metadata a backup decides removals by is "none" only when the file is missing, not a
    /// regular file, or does not parse; any other failure to read it throws, whatever the errno
    /// (an allow-list took `ELOOP`, `ESTALE`, `ETIMEDOUT` for "no metadata": a backup's
    /// clean-up could then remove a generation that is live; review 27).
    func testMetadataThatCannotBeReadIsNeverTakenForNone() throws {
        let folder = TestSupport.temporaryPath("metadata")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/metadata.json"
        XCTAssertNil(try StoreMetadata.onDiskUnlessUnreadable(at: file), "missing")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertNil(try StoreMetadata.onDiskUnlessUnreadable(at: file), "does not parse")
        try FileManager.default.removeItem(atPath: file)
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        XCTAssertNil(try StoreMetadata.onDiskUnlessUnreadable(at: file), "not a regular file")
        try FileManager.default.removeItem(atPath: file)
        XCTAssertEqual(symlink(file, file), 0)
        XCTAssertThrowsError(try StoreMetadata.onDiskUnlessUnreadable(at: file), "a link to itself (ELOOP)")
    }

    /// Metadata rewritten in place while it is read is `StoreError.changedMeanwhile`, typed for
    /// every caller (a backup or restore printed a package-internal error, exit 1: review 28).
    func testMetadataRewrittenWhileReadIsChangedMeanwhile() throws {
        let folder = TestSupport.temporaryPath("metadata-race")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/metadata.json"
        let descriptor = open(file, O_CREAT | O_WRONLY, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        let stop = Atomic<Bool>(false)
        let writer = Thread {
            var long = false
            while !stop.load(ordering: .relaxed) {
                long.toggle()
                let size = long ? 60_000 : 10
                _ = ftruncate(descriptor, off_t(size))
            }
        }
        writer.start()
        defer {
            stop.store(true, ordering: .relaxed)
            while !writer.isFinished { usleep(1000) }
            close(descriptor)
        }
        var changed = 0
        for _ in 0..<20_000 where changed == 0 {
            do {
                _ = try StoreMetadata.onDiskUnlessUnreadable(at: file)
            } catch StoreError.changedMeanwhile(let path, _) {
                XCTAssertEqual(path, file)
                changed += 1
            }
        }
        XCTAssertGreaterThan(changed, 0, "the file never changed during a read")
    }

    /// An open SQLite could not make (`SQLITE_CANTOPEN`) of a database that is there and reads,
    /// in a folder that may be written and has room, with an `errno` that names no cause (a
    /// read-only retry's ENOENT), is an unexplained `ioError`: never damage.
    func testAnUnexplainedCantOpenOfAReadableDatabaseIsAnIOErrorNotDamage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdx-cantopen-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/store.db"
        try Data(repeating: 7, count: 8192).write(to: URL(fileURLWithPath: database))
        let error = DatabaseError.sqlite(
            code: Connection.cantOpenCode, extendedCode: Connection.cantOpenCode,
            message: "unable to open database file",
            systemErrno: ENOENT, path: database)
        let failure = Store.openFailure(error, encrypted: true, databasePath: database)
        XCTAssertEqual(failure.name, "ioError", "\(failure)")
        XCTAssertTrue(failure.errorDescription!.contains(database), failure.errorDescription!)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)).count, 8192)
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-wal"), "the check creates nothing")
    }
}
