import Foundation

/// Checks JSON text without building anything: one iterative pass over the bytes that refuses
/// exactly what `JSONParser` refuses, with the same `DocumentError.invalidJSON` (reason and byte
/// offset), so a malformed document of any size is refused in about the time it takes to read
/// it, before the parser allocates a value for it.
///
/// The pass is one loop over the raw bytes (no bounds-checked subscripts, no token values): runs
/// of plain string bytes are skipped eight at a time, UTF-8 is checked as it is read (once), and
/// an exponent is normalised only when it could be out of range. Its memory is one byte per open
/// container (at most `JSONValue.maximumDepth`).
///
/// Member names are checked in the same pass while they are plain (ASCII without escapes, or
/// their one spelling, `ComposedNameCheck`: equal as `String`s exactly when their bytes are
/// equal), by their bytes in the text. An object with
/// a name that is not plain is left to the parser (its names compare by Unicode canonical
/// equivalence, which needs `String`s), unless the text is malformed further on: then a second
/// pass (`TrackedMemberNames`) compares every name as the parser does, to report the first error
/// (a repeated name may come before the syntax error).
enum JSONValidator {
    /// Throws the error `JSONParser` would throw for `bytes`, except that, unless `completely`,
    /// a document whose only fault is a repeated member name in an object with a name that is
    /// not plain passes (the parser finds those as it builds). With `completely` (for text that
    /// is used without being parsed: `DocumentCollection.json(id:)`), such a document gets the
    /// second pass too, so that every text the parser refuses is refused.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, completely: Bool = false) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw DocumentError.invalidJSON(reason: "unexpected end of input at byte 0")
        }
        let openObjects = UnsafeMutablePointer<Bool>.allocate(capacity: JSONValue.maximumDepth)
        defer { openObjects.deallocate() }
        let frames = UnsafeMutablePointer<PlainMemberNames.Frame>.allocate(capacity: JSONValue.maximumDepth)
        defer { frames.deallocate() }
        var fast = JSONScanner(
            base: base, count: bytes.count, openObjects: openObjects,
            names: PlainMemberNames(frames: frames, end: base + bytes.count))
        do {
            try fast.run()
        } catch {
            // An object whose names were not compared could repeat one before this error.
            guard fast.names.leftUnchecked else { throw error }
            var tracking = JSONScanner(
                base: base, count: bytes.count, openObjects: openObjects, names: TrackedMemberNames(bytes: bytes))
            try tracking.run()
            throw error
        }
        if completely, fast.names.leftUnchecked {
            var tracking = JSONScanner(
                base: base, count: bytes.count, openObjects: openObjects, names: TrackedMemberNames(bytes: bytes))
            try tracking.run()
        }
    }
}

/// What the validator does with member names (`PlainMemberNames` in the first pass,
/// `TrackedMemberNames` in the second). The scanner is specialised for each.
protocol MemberNameChecking {
    mutating func openObject()
    mutating func closeObject()
    /// The name of the member being read: the string token at `offset` (its opening quote) whose
    /// content is `content`; `plain` when it is ASCII without escapes, or its one spelling
    /// (`ComposedNameCheck`): equal as `String`s exactly when equal bytes.
    mutating func readName(at offset: Int, content: UnsafeBufferPointer<UInt8>, plain: Bool) throws
    /// The value of the member being read has ended: throws when its object already has the name.
    mutating func finishMember() throws
}
