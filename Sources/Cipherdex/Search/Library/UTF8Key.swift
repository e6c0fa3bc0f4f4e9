/// A string compared and hashed by its UTF-8 bytes, not by canonical equivalence as `String`
/// is: `café` composed and decomposed are two keys, as they are two UIDs in the database.
struct UTF8Key: Hashable, Sendable {
    /// The string.
    let text: String

    /// Wraps `text`.
    init(_ text: String) { self.text = text }

    static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
