/// Reads FTS4's varints (SQLite's `sqlite3Fts3GetVarint`: 7 bits a byte, least significant
/// first, the high bit set on every byte but the last, at most 10 bytes) from a buffer.
struct VarintReader {
    private let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0

    /// A reader at the start of `buffer`.
    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    /// True when every byte was read.
    var atEnd: Bool { offset >= buffer.count }

    /// The next varint, nil when the buffer ends inside it or it is over 10 bytes.
    @inline(__always)
    mutating func next() -> UInt64? {
        Self.decode(buffer.assumingMemoryBound(to: UInt8.self), at: &offset, end: buffer.count)
    }

    /// The varint at `offset` in `bytes`, `offset` moved past it; nil when it runs to `end` or is
    /// over 10 bytes (the one decoder every reader of FTS4's structures uses).
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end && shift < 70 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// The next `count` bytes, copied; nil when fewer are left.
    mutating func bytes(_ count: Int) -> [UInt8]? {
        raw(count).map { Array($0) }
    }

    /// The next `count` bytes in place; nil when fewer are left.
    mutating func raw(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= buffer.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }
}
