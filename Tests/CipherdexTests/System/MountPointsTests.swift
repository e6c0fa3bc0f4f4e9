import Foundation
import XCTest

@testable import CipherdexStore

/// `MountPoints.widestPath` and `FileSystem.isWithin`: a folder reached through a bind mount is
/// known for the folder it is.
final class MountPointsTests: XCTestCase {
    func testAFolderBoundElsewhereWidensToItsOwnPath() throws {
        let directory = FileSystem.resolvedPath(TestSupport.temporaryPath("tree"))
        try FileManager.default.createDirectory(atPath: directory + "/inner/deep", withIntermediateDirectories: true)
        let bound = try Mounts.bind(directory + "/inner")
        defer { Mounts.unmount(bound) }
        XCTAssertEqual(MountPoints.widestPath(of: bound), directory + "/inner")
        XCTAssertEqual(MountPoints.widestPath(of: bound + "/deep"), directory + "/inner/deep")
        XCTAssertEqual(MountPoints.widestPath(of: bound + "/missing/x"), directory + "/inner/missing/x")
        XCTAssertNil(MountPoints.widestPath(of: directory + "/inner/deep"), "already the widest path")
        XCTAssertNil(MountPoints.widestPath(of: "relative/path"))
    }

    func testIsWithinSeesThroughABindMountEitherWay() throws {
        let directory = FileSystem.resolvedPath(TestSupport.temporaryPath("tree"))
        try FileManager.default.createDirectory(atPath: directory + "/inner/deep", withIntermediateDirectories: true)
        let whole = try Mounts.bind(directory)
        defer { Mounts.unmount(whole) }
        let inner = try Mounts.bind(directory + "/inner")
        defer { Mounts.unmount(inner) }
        XCTAssertTrue(FileSystem.isWithin(whole + "/x", directory))
        XCTAssertTrue(FileSystem.isWithin(whole, directory))
        XCTAssertTrue(FileSystem.isWithin(directory + "/x", whole))
        XCTAssertTrue(FileSystem.isWithin(inner + "/x", directory))
        XCTAssertTrue(FileSystem.isWithin(inner + "/deep", whole + "/inner"))
        XCTAssertFalse(FileSystem.isWithin(FileSystem.parent(of: directory) + "/x", directory))
        XCTAssertFalse(FileSystem.isWithin(directory, inner))
        XCTAssertFalse(FileSystem.isWithin(whole, inner + "/deep"))
    }

    /// By identity alone (what is left when the mount list cannot be read): a path through a
    /// bound folder, or a folder holding it, is inside; a folder inside it bound elsewhere is
    /// not seen this way (`widestPath` sees it).
    func testIsWithinByIdentitySeesTheFolderOrOneHoldingItBoundElsewhere() throws {
        let directory = FileSystem.resolvedPath(TestSupport.temporaryPath("tree"))
        try FileManager.default.createDirectory(atPath: directory + "/inner", withIntermediateDirectories: true)
        let whole = try Mounts.bind(directory)
        defer { Mounts.unmount(whole) }
        let holder = try Mounts.bind(FileSystem.parent(of: directory))
        defer { Mounts.unmount(holder) }
        let name = directory.split(separator: "/").last.map(String.init) ?? ""
        XCTAssertTrue(FileSystem.isWithinByIdentity(whole + "/x/y", directory))
        XCTAssertTrue(FileSystem.isWithinByIdentity(whole, directory))
        XCTAssertTrue(FileSystem.isWithinByIdentity(holder + "/" + name + "/inner/x", directory + "/inner"))
        XCTAssertTrue(FileSystem.isWithinByIdentity(directory + "/x", whole))
        XCTAssertFalse(FileSystem.isWithinByIdentity(holder + "/x", directory))
        XCTAssertFalse(FileSystem.isWithinByIdentity(whole + "/x", directory + "/missing"))
    }
}
