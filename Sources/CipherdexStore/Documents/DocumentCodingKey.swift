/// A coding key of `DocumentDecoder` and `DocumentEncoder` themselves: an array index (named
/// `Index 3`, as Foundation's coders name it, with `intValue` 3) or the `super` key.
struct DocumentCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    /// The key `superDecoder()` and `superEncoder()` use.
    static let superKey = DocumentCodingKey(stringValue: "super")

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of an array element.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
}
