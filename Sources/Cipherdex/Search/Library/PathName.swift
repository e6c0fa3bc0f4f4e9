/// The last component of a path, without Foundation's `NSString.lastPathComponent`, which traps
/// on some paths (`///o//`: three leading and two trailing slashes; found by `FuzzCLIArguments`).
package enum PathName {
    /// The last component of `path`, like `NSString.lastPathComponent`: trailing slashes are
    /// ignored, a path of only slashes is `/`, and an empty path is empty.
    package static func lastComponent(of path: String) -> String {
        let trimmed = path.utf8.reversed().drop { $0 == UInt8(ascii: "/") }
        guard !trimmed.isEmpty else { return path.isEmpty ? "" : "/" }
        let component = trimmed.prefix { $0 != UInt8(ascii: "/") }
        return String(decoding: component.reversed(), as: UTF8.self)
    }
}
