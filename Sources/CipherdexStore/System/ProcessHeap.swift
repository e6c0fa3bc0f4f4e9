internal import CSystemShims

/// malloc settings for a command that runs once and exits (`cipherdex search`).
///
/// glibc serves a block of 128 KiB or more with its own `mmap` and gives it back on `free`, so
/// the next large block faults in fresh pages the kernel must zero again. A search at 1,000,000
/// pages makes a dozen such arrays one after another (a common term's slots, its rows, their
/// lengths and scores, the previews' texts): kept in the heap, the memory one frees is the next
/// one's (`patient`: 9,191 → 6,512 page faults; BENCHMARKS.md, "Previews on two threads").
/// Not for a long-running process: what it frees stays its own.
package enum ProcessHeap {
    /// Blocks up to this size come from the heap (glibc's largest allowed threshold on 64-bit).
    package static let mmapThreshold: Int32 = 32 << 20
    /// Freed memory at the top of the heap is kept up to this much.
    package static let trimThreshold: Int32 = 256 << 20
    /// The heap grows this much more than asked each time.
    package static let topPad: Int32 = 16 << 20

    /// Keeps freed memory for the process's next allocations; true when glibc took every setting
    /// (false elsewhere: nothing is changed).
    @discardableResult
    package static func keepFreedMemory() -> Bool {
        cdx_keep_freed_memory(mmapThreshold, trimThreshold, topPad) == 1
    }
}
