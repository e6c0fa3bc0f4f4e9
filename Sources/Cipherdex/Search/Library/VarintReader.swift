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
        guard offset < buffer.count else { return nil }
        let first = buffer[offset]
        if first < 0x80 {
            offset += 1
            return UInt64(first)
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < buffer.count && shift < 70 {
            let byte = buffer[offset]
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
