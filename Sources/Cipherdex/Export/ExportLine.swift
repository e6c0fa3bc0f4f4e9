/// One JSON Lines record of an export, built the way FORMAT.md ("Export layout") specifies so an
/// independent reader can produce the same bytes: members in the order they are appended, no
/// white space, strings escaped byte by byte (`"` and `\` with a backslash, bytes below 0x20 as
/// `\u00xx` in lowercase hex, everything else — `/` and all non-ASCII UTF-8 — as is).
struct ExportLine {
    /// The bytes so far.
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    /// Appends `"name":` and a JSON string.
    mutating func string(_ name: String, _ value: String?) {
        key(name)
        guard let value else { return null() }
        Self.appendString(value, to: &bytes)
    }

    /// Appends `"name":` and a decimal integer.
    mutating func integer(_ name: String, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: Array(String(value).utf8))
    }

    /// Appends `"name":` and `raw`, which is already JSON (a stored document body or metadata).
    mutating func raw(_ name: String, _ value: [UInt8]) {
        key(name)
        bytes.append(contentsOf: value)
    }

    /// Appends `"name":` and an array of already-encoded JSON values.
    mutating func array(_ name: String, _ elements: [[UInt8]]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The finished record: `}` and a line feed.
    var line: [UInt8] { bytes + [UInt8(ascii: "}"), 0x0A] }

    /// The record without the line feed (for nesting in an array).
    var object: [UInt8] { bytes + [UInt8(ascii: "}")] }

    private mutating func null() { bytes.append(contentsOf: Array("null".utf8)) }

    private mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `value` as a JSON string with the export's escaping.
    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
