import Foundation

/// The names of every open object, to find a repeated one exactly as the parser's `Dictionary`
/// does (same error, same `earlier` name).
struct TrackedMemberNames: MemberNameChecking {
    /// A plain name: bytes of the text (its one spelling, so equal as `String`s exactly when
    /// equal bytes: `ComposedNameCheck`).
    struct PlainName: Hashable {
        let content: UnsafeBufferPointer<UInt8>

        static func == (left: PlainName, right: PlainName) -> Bool {
            left.content.count == right.content.count
                && (left.content.isEmpty
                    || memcmp(left.content.baseAddress!, right.content.baseAddress!, left.content.count) == 0)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(bytes: UnsafeRawBufferPointer(content))
        }
    }

    /// An open object.
    struct Frame {
        /// Where its names start in `plainNames` (while all of them are plain).
        var firstName: Int
        /// Its plain names for lookup, once it has more than `linearLimit` of them.
        var plainSet: Set<PlainName>?
        /// Where its names start in `names`, once one of them is not plain (then `plainNames`
        /// has none of them): compared in turn while there are at most `linearLimit` of them
        /// (`==` stops at the first difference, where hashing a name normalises all of it), then
        /// also hashed in `nameSet`.
        var firstTracked: Int?
        var nameSet: Set<String>?
        /// The member being read: its name in the object's form, and the offset of the name.
        var pendingPlain: PlainName
        var pendingName: String
        var pendingOffset: Int
    }

    /// Members an object may have before its plain names are hashed instead of compared in turn.
    private static let linearLimit = 8

    private let bytes: UnsafeBufferPointer<UInt8>
    private var frames: [Frame] = []
    /// The plain names of the open objects that have only plain names, in order.
    private var plainNames: [PlainName] = []
    /// The names of the open objects that have a name that is not plain, in order (one stack
    /// for all, so that an object allocates nothing of its own).
    private var names: [String] = []
    private var decodingBuffer: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        frames.reserveCapacity(JSONValue.maximumDepth)
    }

    mutating func openObject() {
        frames.append(
            Frame(
                firstName: plainNames.count, plainSet: nil, firstTracked: nil, nameSet: nil,
                pendingPlain: PlainName(content: UnsafeBufferPointer(start: nil, count: 0)), pendingName: "",
                pendingOffset: 0))
    }

    mutating func closeObject() {
        let frame = frames.removeLast()
        if let first = frame.firstTracked {
            names.removeSubrange(first...)
        } else {
            plainNames.removeSubrange(frame.firstName...)
        }
    }

    mutating func readName(at offset: Int, content: UnsafeBufferPointer<UInt8>, plain: Bool) throws {
        let top = frames.count - 1
        frames[top].pendingOffset = offset
        if plain, frames[top].firstTracked == nil {
            frames[top].pendingPlain = PlainName(content: content)
            return
        }
        if frames[top].firstTracked == nil {
            // From now on this object's names are compared as `String`s, in the order read.
            let first = frames[top].firstName
            frames[top].firstTracked = names.count
            for name in plainNames[first...] { names.append(String(decoding: name.content, as: UTF8.self)) }
            plainNames.removeSubrange(first...)
            frames[top].plainSet = nil
            if names.count - frames[top].firstTracked! > Self.linearLimit {
                frames[top].nameSet = Set(names[frames[top].firstTracked!...])
            }
        }
        if plain {
            frames[top].pendingName = String(decoding: content, as: UTF8.self)
        } else {
            // The token is well formed (the scanner read it): decode it as the parser does.
            var lexer = JSONLexer(bytes: bytes)
            lexer.index = offset
            switch try lexer.scanString(decodingInto: &decodingBuffer) {
            case .raw(let raw): frames[top].pendingName = String(decoding: raw, as: UTF8.self)
            case .decoded: frames[top].pendingName = String(decoding: decodingBuffer, as: UTF8.self)
            }
        }
    }

    mutating func finishMember() throws {
        let top = frames.count - 1
        let offset = frames[top].pendingOffset
        if let first = frames[top].firstTracked {
            let name = frames[top].pendingName
            // The same error as the building parser's (a `Set` of `String`, like its
            // `Dictionary`, holds one of two canonically equivalent names: the earlier one).
            if frames[top].nameSet != nil {
                let (inserted, earlier) = frames[top].nameSet!.insert(name)
                guard inserted else { throw JSONLexer.repeatedName(name, earlier: earlier, at: offset) }
                return
            }
            if let earlier = names[first...].first(where: { $0 == name }) {
                throw JSONLexer.repeatedName(name, earlier: earlier, at: offset)
            }
            names.append(name)
            if names.count - first > Self.linearLimit { frames[top].nameSet = Set(names[first...]) }
            return
        }
        let first = frames[top].firstName
        let name = frames[top].pendingPlain
        if frames[top].plainSet != nil {
            guard frames[top].plainSet!.insert(name).inserted else { throw Self.repeated(name, at: offset) }
        } else {
            for index in first..<plainNames.count where plainNames[index] == name {
                throw Self.repeated(name, at: offset)
            }
            if plainNames.count - first == Self.linearLimit {
                frames[top].plainSet = Set(plainNames[first...] + [name])
            }
        }
        plainNames.append(name)
    }

    private static func repeated(_ name: PlainName, at offset: Int) -> DocumentError {
        let text = String(decoding: name.content, as: UTF8.self)
        return JSONLexer.repeatedName(text, earlier: text, at: offset)
    }
}
