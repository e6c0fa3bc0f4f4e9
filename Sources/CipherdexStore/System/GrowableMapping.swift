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
    ///
    /// With `reserving`, the mapping is address space only until written (`MAP_NORESERVE`: no
    /// swap is set aside for it), so that a large one costs nothing for the pages never touched
    /// and never needs to grow (`adopt` moves pages into it, which a later `grow` could not carry:
    /// `mremap` moves one mapping of the system's, and the adopted pages are one of their own).
    package init?(capacity: Int, reserving: Bool = false) {
        let length = Self.pages(max(capacity, 1))
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserving ? MAP_NORESERVE : 0)
        let address = mmap(nil, length, PROT_READ | PROT_WRITE, flags, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        baseAddress = address
        self.capacity = length
    }

    deinit {
        if capacity > 0 { munmap(baseAddress, capacity) }
    }

    /// The system's page size: what `adopt` offsets are multiples of.
    package static var pageSize: Int { max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096) }

    /// Moves every page of `other` to `offset` (a multiple of `pageSize`) in this mapping, whose
    /// pages there are replaced: on Linux the pages move, nothing is copied (`mremap` with
    /// `MREMAP_FIXED`). `other` is left empty (capacity 0). False, with both unchanged, when they
    /// do not fit below `capacity` (this mapping is not grown: after an adoption it could not be)
    /// or the system refuses.
    package func adopt(_ other: GrowableMapping, at offset: Int) -> Bool {
        precondition(offset >= 0 && offset % Self.pageSize == 0, "an adopted mapping starts on a page")
        guard other.capacity > 0 else { return true }
        guard offset <= capacity - other.capacity else { return false }
        guard cdx_move_mapping(other.baseAddress, other.capacity, baseAddress + offset) == 0 else { return false }
        other.capacity = 0
        return true
    }

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
    package static func pages(_ bytes: Int) -> Int {
        let page = pageSize
        return (bytes + page - 1) / page * page
    }
}
