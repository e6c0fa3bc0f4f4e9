import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Destinations a backup must refuse, each with a typed error within a second, leaving the
/// destination (and the store) exactly as they were.
final class StoreBackupDestinationTests: XCTestCase {
    private var store: Store!
    private var storePath = ""

    override func setUpWithError() throws {
        storePath = TestSupport.temporaryPath()
        _ = try StoreBackupTests.populate(storePath, key: TestSupport.rawKey(1))
        store = try Store.open(TestSupport.configuration(storePath, key: TestSupport.rawKey(1)))
    }

    override func tearDown() {
        store?.close()
    }

    /// `backup(to:)` fails with `name` quickly and changes nothing at `destination`.
    private func expectRefusal(
        _ name: String, _ destination: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let parent = FileSystem.parent(of: destination)
        let before = TestSupport.snapshot(parent)
        let started = Date()
        XCTAssertThrowsCase(name, try store.backup(to: destination), file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, file: file, line: line)
        XCTAssertEqual(TestSupport.snapshot(parent), before, "nothing changed", file: file, line: line)
    }

    func testAFileAFIFOAndAForeignDirectoryAreRefused() throws {
        let directory = TestSupport.temporaryPath("dir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/file"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: file))
        expectRefusal("destinationNotAStore", file)
        let fifo = directory + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        expectRefusal("destinationNotAStore", fifo)
        let foreign = directory + "/foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try Data("photo".utf8).write(to: URL(fileURLWithPath: foreign + "/photo.jpg"))
        expectRefusal("destinationNotAStore", foreign)
        expectRefusal("destinationNotAStore", file + "/inside")
    }

    func testAnotherStoreIsRefusedAndAStoreOpenElsewhereIsLocked() throws {
        let other = TestSupport.temporaryPath("other")
        try Store.open(TestSupport.configuration(other, key: TestSupport.rawKey(1))).close()
        expectRefusal("destinationIsAnotherStore", other)
        // A backup open elsewhere is locked too.
        let backup = TestSupport.temporaryPath("backup")
        try store.backup(to: backup)
        let opened = try Store.open(TestSupport.configuration(backup, key: TestSupport.rawKey(1)))
        defer { opened.close() }
        expectRefusal("storeLocked", backup)
    }

    /// The store itself, a path inside its folder (however written: `..`, a link) or a folder
    /// holding it is refused before anything is written: a backup in `staging/` was taken for the
    /// store's own files, and the store no longer opened.
    /// An earlier backup whose next generation's folder (`attachments.1`) holds what is not the
    /// backup's is refused, naming it, before the copy is written there (it was taken into the
    /// copy, and `verify` called the backup damaged).
    /// A folder holding only a lock file is what a killed `create` leaves, replaced without
    /// confirmation; a running `create` looks the same, and one that finishes while the backup
    /// waits for its lock is not replaced (review 28b: both said success, the new store gone).
    func testAStoreACreateFinishesWhileTheBackupWaitsIsNotReplaced() throws {
        let destination = TestSupport.temporaryPath("creating")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
        let layout = StoreLayout(directory: destination)
        XCTAssertTrue(FileManager.default.createFile(atPath: layout.lockFile, contents: Data()))
        let creating = try StoreLock(layout: layout)
        let outcome = Mutex<Result<BackupSummary, Error>?>(nil)
        let backup = Thread { [store] in
            let result = Result { try store!.backup(to: destination) }
            outcome.withLock { $0 = result }
        }
        backup.start()
        usleep(30_000)
        let made = TestSupport.temporaryPath("made")
        try Store.open(TestSupport.configuration(made, key: TestSupport.rawKey(2))).close()
        for name in ["metadata.json", "store.db"] {
            XCTAssertEqual(rename(made + "/" + name, destination + "/" + name), 0)
        }
        let before = TestSupport.snapshot(destination)
        creating.release()
        while outcome.withLock({ $0 == nil }) { usleep(1_000) }
        XCTAssertThrowsError(try XCTUnwrap(outcome.withLock { $0 }).get()) { error in
            XCTAssertEqual("\(error)", "\(BackupError.destinationFilledMeanwhile(path: destination))")
        }
        XCTAssertEqual(TestSupport.snapshot(destination), before)
        try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(2))).close()
    }

    func testAnEarlierBackupWhoseNextFolderHoldsForeignFilesIsRefused() throws {
        let destination = TestSupport.temporaryPath("backup")
        try store.backup(to: destination)
        try FileManager.default.createDirectory(
            atPath: destination + "/attachments.1/photos", withIntermediateDirectories: true)
        expectRefusal("destinationNotAStore", destination)
        let backup = try Store.open(TestSupport.configuration(destination, key: TestSupport.rawKey(1)))
        defer { backup.close() }
        XCTAssertTrue(try backup.verify().isHealthy)
    }

    func testADestinationOverlappingTheStoreIsRefused() throws {
        let link = TestSupport.temporaryPath("link")
        XCTAssertEqual(symlink(storePath, link), 0)
        defer { unlink(link) }
        for destination in [
            storePath, storePath + "/", storePath + "/staging", storePath + "/attachments/x", storePath + "/a/b",
            storePath + "/../" + (storePath.split(separator: "/").last.map(String.init) ?? "") + "/staging",
            link + "/staging", FileSystem.parent(of: storePath),
        ] {
            let before = TestSupport.snapshot(storePath)
            XCTAssertThrowsCase("destinationOverlapsStore", try store.backup(to: destination))
            XCTAssertEqual(TestSupport.snapshot(storePath), before, destination)
            XCTAssertFalse(FileManager.default.fileExists(atPath: storePath + "/a"))
        }
        store.close()
        store = try Store.open(TestSupport.configuration(storePath, key: TestSupport.rawKey(1)))
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// The same through another path to the same folders (a bind mount, as containers have): of
    /// the store's folder, of a folder holding it, of a folder inside it; a restore into its
    /// backup the same way. A backup was nested inside the store's folder.
    func testADestinationOverlappingTheStoreThroughABindMountIsRefused() throws {
        let name = storePath.split(separator: "/").last.map(String.init) ?? ""
        let folder = try Mounts.bind(storePath)
        defer { Mounts.unmount(folder) }
        let parent = try Mounts.bind(FileSystem.parent(of: storePath))
        defer { Mounts.unmount(parent) }
        let attachments = try Mounts.bind(storePath + "/attachments")
        defer { Mounts.unmount(attachments) }
        for destination in [
            folder, folder + "/y", folder + "/a/b", folder + "/staging", parent + "/" + name + "/y", parent,
            attachments + "/y",
        ] {
            let before = TestSupport.snapshot(storePath)
            XCTAssertThrowsCase("destinationOverlapsStore", try store.backup(to: destination))
            XCTAssertEqual(TestSupport.snapshot(storePath), before, destination)
        }
        let backup = TestSupport.temporaryPath("backup")
        try store.backup(to: backup)
        let backupFolder = try Mounts.bind(backup)
        defer { Mounts.unmount(backupFolder) }
        let before = TestSupport.snapshot(backup)
        XCTAssertThrowsCase(
            "destinationOverlapsStore",
            try Store.restore(TestSupport.configuration(backup, key: TestSupport.rawKey(1)), to: backupFolder + "/r"))
        XCTAssertEqual(TestSupport.snapshot(backup), before)
        store.close()
        store = try Store.open(TestSupport.configuration(storePath, key: TestSupport.rawKey(1)))
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// A new destination is built in a sibling folder 21 bytes longer (`.NAME.backup-` and 12
    /// hex digits): a name or path the sibling cannot have is `invalidPath` naming the limit,
    /// nothing created (it was `mkdir`'s "File name too long" or SQLite's "unable to open
    /// database file"); one byte less works. A restore says so before the backup is opened.
    func testANewDestinationTooLongForItsSiblingIsInvalidPath() throws {
        let directory = FileSystem.resolvedPath(TestSupport.temporaryPath("long"))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let longestName = 255 - BackupDestination.siblingExtraBytes
        XCTAssertEqual(longestName, 234)
        expectRefusal("invalidPath", directory + "/" + String(repeating: "b", count: longestName + 1))
        expectRefusal("invalidPath", directory + "/" + String(repeating: "b", count: 300))
        let emptyFolder = directory + "/" + String(repeating: "e", count: longestName + 1)
        try FileManager.default.createDirectory(atPath: emptyFolder, withIntermediateDirectories: false)
        expectRefusal("invalidPath", emptyFolder)
        XCTAssertThrowsError(try store.backup(to: directory + "/" + String(repeating: "b", count: longestName + 1))) {
            XCTAssertTrue(
                ($0.localizedDescription).contains("give a name of at most 234 bytes"), $0.localizedDescription)
        }
        let named = directory + "/" + String(repeating: "b", count: longestName)
        try store.backup(to: named)

        let longestPath = BackupDestination.longestNewPath
        XCTAssertEqual(longestPath, 473)
        let parent = directory + "/" + String(repeating: "p", count: 200)
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        func path(_ length: Int) -> String {
            parent + "/" + String(repeating: "q", count: length - parent.utf8.count - 1)
        }
        expectRefusal("invalidPath", path(longestPath + 1))
        expectRefusal("invalidPath", path(StoreConfiguration.longestDirectoryPath))
        XCTAssertThrowsError(try store.backup(to: path(longestPath + 1))) {
            XCTAssertTrue(($0.localizedDescription).contains("it may be at most 473 bytes"), $0.localizedDescription)
        }
        try store.backup(to: path(longestPath))
        store.close()
        for backup in [named, path(longestPath)] {
            let opened = try Store.open(TestSupport.configuration(backup, key: TestSupport.rawKey(1)))
            XCTAssertEqual(try opened.verify().problems, [])
            opened.close()
        }

        // A restore: refused before the backup is opened (a wrong key is not even asked for).
        let before = TestSupport.snapshot(directory)
        for destination in [
            directory + "/" + String(repeating: "r", count: longestName + 1), path(longestPath + 1),
        ] {
            XCTAssertThrowsCase(
                "invalidPath",
                try Store.restore(TestSupport.configuration(named, key: TestSupport.rawKey(9)), to: destination))
            XCTAssertThrowsCase(
                "invalidPath",
                try Store.restore(TestSupport.configuration(named, key: TestSupport.rawKey(1)), to: destination))
        }
        XCTAssertEqual(TestSupport.snapshot(directory), before)
        try Store.restore(TestSupport.configuration(named, key: TestSupport.rawKey(1)), to: path(longestPath - 1))
    }

    func testAStoreWhoseDataKeyChangedIsNotReused() throws {
        let backup = TestSupport.temporaryPath("backup")
        try store.backup(to: backup)
        store.close()
        try Store.reencrypt(TestSupport.configuration(storePath, key: TestSupport.rawKey(1)))
        store = try Store.open(TestSupport.configuration(storePath, key: TestSupport.rawKey(1)))
        // Same store id, new data key: its earlier backup's files are not this store's any more.
        expectRefusal("destinationIsAnotherStore", backup)
    }

    func testAReadOnlyDestinationIsPermissionDenied() throws {
        let directory = TestSupport.temporaryPath("dir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try store.backup(to: directory + "/backup")
        let view = try Mounts.readOnlyView(of: directory)
        defer { Mounts.unmount(view) }
        expectRefusal("permissionDenied", view + "/new")
        expectRefusal("permissionDenied", view + "/backup")
    }

    /// An empty mount point (a freshly mounted drive) is refused at once, saying to give a
    /// folder inside it, which works; a restore there too.
    func testAnEmptyMountPointIsRefusedAndAFolderInsideItWorks() throws {
        let mount = try Mounts.tmpfs(size: 32 << 20)
        defer { Mounts.unmount(mount) }
        let started = Date()
        XCTAssertThrowsCase("destinationIsMountPoint", try store.backup(to: mount))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(FileSystem.contents(of: mount), [], "nothing written there")
        XCTAssertTrue(
            (BackupError.destinationIsMountPoint(path: mount).errorDescription ?? "").contains(
                "give a folder inside it, such as \(mount)/backup"))
        try store.backup(to: mount + "/backup")
        let other = try Mounts.tmpfs(size: 32 << 20)
        defer { Mounts.unmount(other) }
        XCTAssertThrowsCase(
            "destinationIsMountPoint",
            try Store.restore(TestSupport.configuration(mount + "/backup", key: TestSupport.rawKey(1)), to: other))
        XCTAssertEqual(FileSystem.contents(of: other), [])
    }

    func testAFullDiskIsRefusedAndThePreviousBackupKept() throws {
        let mount = try Mounts.tmpfs(size: 12 << 20)
        defer { Mounts.unmount(mount) }
        let backup = mount + "/backup"
        try store.backup(to: backup)
        let previous = TestSupport.snapshot(backup)
        _ = try store.addAttachment(Data((0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        _ = try Mounts.fill(mount, leaving: 3 << 20)
        XCTAssertThrowsCase("insufficientSpace", try store.backup(to: backup))
        XCTAssertThrowsCase("insufficientSpace", try store.backup(to: mount + "/new"))
        XCTAssertEqual(TestSupport.snapshot(backup), previous, "the previous backup, byte for byte")
        XCTAssertEqual(Set(FileSystem.contents(of: mount)).filter { !$0.hasPrefix("filler-") }, ["backup"])
        let reopened = try Store.open(TestSupport.configuration(backup, key: TestSupport.rawKey(1)))
        defer { reopened.close() }
        XCTAssertTrue(try reopened.verify().isHealthy)
    }

    func testADamagedAttachmentFailsTheBackupAndLeavesThePreviousOne() throws {
        let backup = TestSupport.temporaryPath("backup")
        try store.backup(to: backup)
        let previous = TestSupport.snapshot(backup)
        let added = try store.addAttachment(Data(repeating: 0x41, count: 200_000))
        // One flipped bit in the new file: the copy of it fails its authentication.
        let file = store.attachmentStorage.path(of: added.id)
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: file))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try store.backup(to: backup)) { error in
            XCTAssertTrue(error is AttachmentError, "\(error)")
        }
        XCTAssertEqual(TestSupport.snapshot(backup), previous, "the previous backup, byte for byte")
    }

    func testACancelledBackupLeavesNoDestinationAndNoBuildingFolder() throws {
        let backup = TestSupport.temporaryPath("backup")
        let parent = FileSystem.parent(of: backup)
        XCTAssertThrowsCase("cancelled", try store.backup(to: backup) { $0.phase != .attachments })
        XCTAssertEqual(FileSystem.contents(of: parent), [], "no destination and no sibling left")
    }

    /// Folders beside a new destination whose names start like a backup's building folder are
    /// removed only when provably one an interrupted backup left (its exact name and lock file,
    /// or empty); anyone else's are kept, contents and all.
    func testOnlyProvablyInterruptedBuildingFoldersAreRemoved() throws {
        let backup = TestSupport.temporaryPath("mybackup")
        let parent = FileSystem.parent(of: backup)
        let manager = FileManager.default
        for folder in [
            ".mybackup.backup-2024-01-01/photos", ".mybackup.backup-0123456789ab", ".mybackup.backup-aaaaaaaaaaaa",
        ] {
            try manager.createDirectory(atPath: parent + "/" + folder, withIntermediateDirectories: true)
        }
        try Data("irreplaceable".utf8).write(
            to: URL(fileURLWithPath: parent + "/.mybackup.backup-2024-01-01/photos/p1"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: parent + "/.mybackup.backup-0123456789ab/notes"))
        let interrupted = parent + "/.mybackup.backup-00000000beef"
        try manager.createDirectory(atPath: interrupted + "/attachments", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: interrupted + "/cipherdex.lock"))
        try Data("ciphertext".utf8).write(to: URL(fileURLWithPath: interrupted + "/attachments/x"))
        try store.backup(to: backup)
        XCTAssertEqual(
            FileSystem.contents(of: parent).sorted(),
            [".mybackup.backup-0123456789ab", ".mybackup.backup-2024-01-01", "mybackup"],
            "the interrupted building folder and the empty one are removed, nothing else")
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: parent + "/.mybackup.backup-2024-01-01/photos/p1")),
            Data("irreplaceable".utf8))
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: parent + "/.mybackup.backup-0123456789ab/notes")),
            Data("mine".utf8))
    }

    /// A new destination that another store (another backup, a `create`) fills while the backup
    /// runs is left as that made it: the backup says so, never that its copy is in place, and
    /// removes its copy. For a store with the same generations (two fresh stores) too.
    func testADestinationFilledWhileTheBackupRunsIsLeftAsItIs() throws {
        for racer in ["another store", "the same store"] {
            let backup = TestSupport.temporaryPath("backup")
            let parent = FileSystem.parent(of: backup)
            let other = TestSupport.temporaryPath("other")
            if racer == "another store" {
                _ = try StoreBackupTests.populate(other, key: TestSupport.rawKey(2))
            }
            var filled: [String: [UInt8]] = [:]
            XCTAssertThrowsError(
                try store.backup(
                    to: backup, replacingAnotherStore: false, progress: nil, cancellation: nil,
                    faultPoint: { step in
                        guard step == .beforeSwitch else { return }
                        if racer == "another store" {
                            let source = try Store.open(TestSupport.configuration(other, key: TestSupport.rawKey(2)))
                            defer { source.close() }
                            try source.backup(to: backup)
                        } else {
                            try self.store.backup(to: backup)
                        }
                        filled = TestSupport.snapshot(backup)
                    })
            ) {
                XCTAssertEqual($0 as? BackupError, .destinationFilledMeanwhile(path: backup), racer)
            }
            XCTAssertFalse(filled.isEmpty, racer)
            XCTAssertEqual(TestSupport.snapshot(backup), filled, "\(racer): the destination is as the other made it")
            XCTAssertEqual(
                FileSystem.contents(of: parent).filter { $0.hasPrefix(".backup.backup-") }, [],
                "\(racer): this backup's copy is removed")
        }
    }
}
