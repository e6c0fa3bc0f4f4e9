import Foundation
import XCTest

#if os(Linux)
    /// What the page cache holds of a file (`mincore`), for the write-behind tests (issue 16).
    enum PageCacheProbe {
        /// The type (`/proc/mounts`) of the file system that holds `path`.
        static func fileSystemType(of path: String) -> String? {
            let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
            let entries = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count > 2 }
            let holding = entries.filter { path == $0[1] || path.hasPrefix($0[1] == "/" ? "/" : $0[1] + "/") }
            return holding.max { $0[1].count < $1[1].count }.map { String($0[2]) }
        }

        /// The fraction of the pages of `fd` in `offset..<offset + count` that are in the page cache.
        static func residentFraction(_ fd: Int32, offset: Int, count: Int) throws -> Double {
            let map = mmap(nil, count, PROT_READ, MAP_SHARED, fd, off_t(offset))
            guard let map, map != MAP_FAILED else { throw XCTSkip("mmap failed: \(errno)") }
            defer { munmap(map, count) }
            let pages = (count + 4095) / 4096
            var vector = [UInt8](repeating: 0, count: pages)
            XCTAssertEqual(mincore(map, count, &vector), 0)
            return Double(vector.filter { $0 & 1 != 0 }.count) / Double(pages)
        }
    }
#endif
