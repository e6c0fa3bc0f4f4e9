/// A validated dotted path to a field of a document, such as `address.city`; its components
/// name members byte for byte (see `JSONValue`).
struct FieldPath: Hashable, Sendable {
    /// Longest accepted path, in UTF-8 bytes.
    static let maximumLength = 512

    /// The path as written.
    let rawValue: String
    /// Its components, each non-empty.
    let components: [String]

    /// Parses `path`; throws `DocumentError.invalidFieldPath` when it is empty, too long, has an
    /// empty component or contains a control character.
    init(_ path: String) throws {
        guard !path.isEmpty, path.utf8.count <= FieldPath.maximumLength,
            !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw DocumentError.invalidFieldPath(path) }
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else { throw DocumentError.invalidFieldPath(path) }
        self.rawValue = path
        self.components = components
    }

    /// Paths are equal when their UTF-8 bytes are (as member names are matched; `String`'s `==`
    /// would make `café` and `cafe` with a combining accent one path).
    static func == (lhs: FieldPath, rhs: FieldPath) -> Bool {
        lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8)
    }

    /// Hashes the UTF-8 bytes, consistently with `==`.
    func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue.utf8.count)
        for byte in rawValue.utf8 { hasher.combine(byte) }
    }

    /// Why `path` is not a valid path, in words, quoting at most its first 80 characters (a
    /// path of 100 KB is not printed back whole).
    static func problem(of path: String) -> String {
        let shown = path.count > 80 ? String(path.prefix(80)).debugDescription + "… (cut)" : path.debugDescription
        let reason: String
        if path.isEmpty {
            reason = "it is empty"
        } else if path.utf8.count > maximumLength {
            reason = "it is \(path.utf8.count) bytes long, longer than \(maximumLength)"
        } else if let control = path.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            let hex = String(control.value, radix: 16, uppercase: true)
            reason = "it holds a control character (U+\(String(repeating: "0", count: 4 - hex.count) + hex))"
        } else if path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            reason = "it has an empty component (a '.' at its start or end, or two in a row)"
        } else {
            reason = "it is not a dotted path of member names"
        }
        return "invalid field path \(shown): \(reason)"
    }

    /// The array index a component denotes: decimal digits only, no leading zero.
    static func arrayIndex(_ component: String) -> Int? {
        guard let first = component.utf8.first, component.utf8.count <= 9,
            component.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            first != UInt8(ascii: "0") || component.utf8.count == 1
        else { return nil }
        return Int(component)
    }
}
