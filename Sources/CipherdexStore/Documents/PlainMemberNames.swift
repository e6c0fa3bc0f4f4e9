import Foundation

/// A member name compared by its bytes in the text.
struct PlainName: Hashable {
    let start: UnsafePointer<UInt8>
    let count: Int
    /// Its first eight bytes (zeros past its end), compared first.
    let prefix: UInt64

    /// The name `content`, in text that ends at `end`.
    @inline(__always)
    init(_ content: UnsafeBufferPointer<UInt8>, end: UnsafePointer<UInt8>) {
        start = content.baseAddress ?? UnsafePointer(bitPattern: 1)!
        count = content.count
        if count == 0 {
            prefix = 0
        } else if end - start >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
            prefix = count >= 8 ? word : word & ((1 << (8 * UInt64(count))) - 1)
        } else {
            var prefix: UInt64 = 0
            for index in 0..<min(count, 8) { prefix |= UInt64(start[index]) << (8 * index) }
            self.prefix = prefix
        }
    }

    static func == (left: PlainName, right: PlainName) -> Bool {
        left.prefix == right.prefix && left.count == right.count
            && (left.count <= 8 || memcmp(left.start + 8, right.start + 8, left.count - 8) == 0)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: UnsafeRawBufferPointer(start: start, count: count))
    }
}

/// The first pass's check of member names: the plain names of each open object, compared by
/// their bytes (in turn up to `linearLimit` members, then through a `Set`). An object with a
/// name that is not plain is no longer checked; `leftUnchecked` tells when such an object had
/// more than one member.
struct PlainMemberNames: MemberNameChecking {
    /// An open object.
    struct Frame {
        /// Where its names start in `names`.
        var firstName: Int
        /// Its members so far.
        var members: Int
        /// Whether it has a name that is not plain (its names are no longer recorded).
        var unchecked: Bool
        /// The member being read (when its name is plain) and the offset of its name.
        var pending: PlainName
        var pendingOffset: Int
    }

    /// Members an object may have before its names are hashed instead of compared in turn.
    private static let linearLimit = 8

    private let frames: UnsafeMutablePointer<Frame>
    /// The end of the text.
    private let end: UnsafePointer<UInt8>
    /// Open objects.
    private var depth = 0
    /// The plain names of the open objects, in order.
    private var names: [PlainName] = []
    /// For each open object of more than `linearLimit` members, its names.
    private var sets: [Int: Set<PlainName>] = [:]
    /// Whether an object with a name that is not plain had more than one member.
    private(set) var leftUnchecked = false

    init(frames: UnsafeMutablePointer<Frame>, end: UnsafePointer<UInt8>) {
        self.frames = frames
        self.end = end
    }

    mutating func openObject() {
        (frames + depth).initialize(
            to: Frame(
                firstName: names.count, members: 0, unchecked: false,
                pending: PlainName(UnsafeBufferPointer(start: nil, count: 0), end: end),
                pendingOffset: 0))
        depth += 1
    }

    mutating func closeObject() {
        depth -= 1
        let frame = frames[depth]
        if frame.members > Self.linearLimit { sets[depth] = nil }
        if names.count > frame.firstName { names.removeLast(names.count - frame.firstName) }
    }

    @inline(__always)
    mutating func readName(at offset: Int, content: UnsafeBufferPointer<UInt8>, plain: Bool) {
        let frame = frames + (depth - 1)
        frame.pointee.members += 1
        if !plain, !frame.pointee.unchecked {
            frame.pointee.unchecked = true
            if frame.pointee.members > Self.linearLimit + 1 { sets[depth - 1] = nil }
            names.removeLast(names.count - frame.pointee.firstName)
        }
        if frame.pointee.unchecked {
            if frame.pointee.members > 1 { leftUnchecked = true }
            return
        }
        frame.pointee.pending = PlainName(content, end: end)
        frame.pointee.pendingOffset = offset
    }

    @inline(__always)
    mutating func finishMember() throws {
        let frame = frames + (depth - 1)
        guard !frame.pointee.unchecked else { return }
        let name = frame.pointee.pending
        let first = frame.pointee.firstName
        if frame.pointee.members > Self.linearLimit {
            if frame.pointee.members == Self.linearLimit + 1 { sets[depth - 1] = Set(names[first...]) }
            guard sets[depth - 1]!.insert(name).inserted else { throw repeated(frame.pointee) }
        } else {
            for index in first..<names.count where names[index] == name { throw repeated(frame.pointee) }
        }
        names.append(name)
    }

    private func repeated(_ frame: Frame) -> DocumentError {
        let text = String(
            decoding: UnsafeBufferPointer(start: frame.pending.start, count: frame.pending.count), as: UTF8.self)
        return JSONLexer.repeatedName(text, earlier: text, at: frame.pendingOffset)
    }
}
