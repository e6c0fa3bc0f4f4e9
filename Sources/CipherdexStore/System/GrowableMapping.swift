internal import CSystemShims
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An anonymous, private, read-write mapping that grows without copying (Linux `mremap`: the
/// page tables move, the pages stay), for a buffer appended to until its final size is known.
///
/// A buffer grown by `realloc` from glibc's heap is copied into fresh memory each time it
/// doubles, until it is large enough for a mapping of its own: a phrase of two common words at
/// 1,000,000 pages copied 46 MB of doclists and faulted in about as much again in those copies
/// (BENCHMARKS.md, "Fresh memory"). Here only the pages written are ever touched, once.
/// Owned by one thread at a time; `baseAddress` changes when the mapping grows.
package final class GrowableMapping {
    /// The mapping's first byte (page-aligned).
    package private(set) var baseAddress: UnsafeMutableRawPointer
    /// The mapping's length in bytes.
    package private(set) var capacity: Int

    /// A mapping of at least `capacity` bytes (rounded up to whole pages); nil when the system
    /// refuses it (`errno` tells why).
    package init?(capacity: Int) {
        let length = Self.pages(max(capacity, 1))
        let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        baseAddress = address
        self.capacity = length
    }

    deinit { munmap(baseAddress, capacity) }

    /// Makes the mapping at least `wanted` bytes long, keeping its contents (the address may
    /// change); false when the system refuses (the mapping is then unchanged).
    package func grow(toAtLeast wanted: Int) -> Bool {
        guard wanted > capacity else { return true }
        let length = Self.pages(wanted)
        guard let moved = cdx_grow_mapping(baseAddress, capacity, length) else { return false }
        baseAddress = moved
        capacity = length
        return true
    }

    /// `bytes` rounded up to whole pages.
    private static func pages(_ bytes: Int) -> Int {
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        return (bytes + page - 1) / page * page
    }
}
