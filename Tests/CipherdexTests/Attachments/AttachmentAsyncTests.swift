import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The attachment async forms: a cancelled copy stops between chunks and leaves nothing; reads
/// from many tasks share one reader.
final class AttachmentAsyncTests: XCTestCase {
    private func bigFile(megabytes: Int) throws -> (path: String, data: Data) {
        let path = TestSupport.temporaryPath("big.bin")
        var data = Data(count: megabytes << 20)
        data.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 4096) {
                raw[index] = UInt8(truncatingIfNeeded: index >> 12)
            }
        }
        try data.write(to: URL(fileURLWithPath: path))
        return (path, data)
    }

    func testCancelledCopyStopsPromptlyAndLeavesNothing() async throws {
        let path = TestSupport.temporaryPath()
        let store = try await Store.openAsync(TestSupport.configuration(path, key: TestSupport.rawKey(3)))
        defer { store.close() }
        let (source, _) = try bigFile(megabytes: 512)
        defer { try? FileManager.default.removeItem(atPath: source) }
        let copy = Task { try await store.addAttachmentAsync(fromFile: source) }
        try await Task.sleep(nanoseconds: 150_000_000)
        let cancelledAt = Date()
        copy.cancel()
        do {
            _ = try await copy.value
            XCTFail("a 512 MiB copy cancelled after 150 ms must not complete")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        XCTAssertEqual(try store.attachmentTokens(), [])
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: path + "/staging")) ?? []
        let attachments = (try? FileManager.default.contentsOfDirectory(atPath: path + "/attachments")) ?? []
        XCTAssertEqual(staging, [], "the staged ciphertext is deleted")
        XCTAssertEqual(attachments, [])
    }

    func testAsyncAddAndReadsFromManyTasksShareOneReader() async throws {
        let store = try await Store.openAsync(
            TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(4)))
        defer { store.close() }
        let (source, data) = try bigFile(megabytes: 3)
        let token = try await store.addAttachmentAsync(fromFile: source)
        let reader = try await store.attachmentAsync(token.id)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let start = index * 100_000
                    let bytes = try await reader.readAsync(range: start..<(start + 5000))
                    XCTAssertEqual(bytes, data[start..<(start + 5000)])
                    XCTAssertEqual(try reader.read(range: start..<(start + 10)), data[start..<(start + 10)])
                }
            }
            try await group.waitForAll()
        }
        let all = try await reader.readAllAsync()
        XCTAssertEqual(all, data)
        var streamed = Data()
        for try await chunk in reader.chunks(chunkSize: 1 << 20) { streamed.append(chunk) }
        XCTAssertEqual(streamed, data)
        let fromData = try await store.addAttachmentAsync(Data("small".utf8), contentType: "text/plain")
        let small = try await store.attachmentDataAsync(fromData.id)
        XCTAssertEqual(small, Data("small".utf8))
        XCTAssertThrowsError(try reader.read(range: -1..<3)) { error in
            guard case AttachmentError.rangeOutOfBounds = error else { return XCTFail("\(error)") }
        }
        let removed = try await store.removeAttachmentAsync(fromData.id)
        XCTAssertTrue(removed)
    }

    /// A consumer of `chunks()` whose task is cancelled gets `CancellationError` (the stream
    /// used to end as if the content were whole, after part of it).
    func testACancelledChunkConsumerGetsCancellationError() async throws {
        let store = try await Store.openAsync(
            TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(5)))
        defer { store.close() }
        let token = try await store.addAttachmentAsync(Data(repeating: 0x5A, count: 8 << 20), contentType: nil)
        let reader = try store.attachment(token.id)
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task { () throws -> Int in
            var count = 0
            for try await chunk in reader.chunks(chunkSize: 4096) {
                count += chunk.count
                if count == 4096 { started.continuation.yield() }
            }
            return count
        }
        for await _ in started.stream { break }
        consumer.cancel()
        do {
            let count = try await consumer.value
            XCTFail("the stream ended without an error after \(count) of \(reader.length) bytes")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        // Uncancelled, it reads everything.
        var total = 0
        for try await chunk in reader.chunks(chunkSize: 1 << 20) { total += chunk.count }
        XCTAssertEqual(UInt64(total), reader.length)
    }

    func testCancelledStreamedAddLeavesNothing() async throws {
        let path = TestSupport.temporaryPath()
        let store = try await Store.openAsync(TestSupport.configuration(path, key: TestSupport.rawKey(5)))
        defer { store.close() }
        // An endless stream of 64 KiB pieces: only cancellation ends the add.
        let endless = AsyncStream<Data> { Data(count: 64 << 10) }
        let adding = Task { try await store.addAttachmentAsync(from: endless) }
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelledAt = Date()
        adding.cancel()
        do {
            _ = try await adding.value
            XCTFail("an endless add must only end by cancellation")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: path + "/staging")) ?? [], [])
    }
}
