import Foundation

/// Which member names the validator may compare by their bytes: those without escapes whose
/// every character is one no other spelling is canonically equivalent to in a name of such
/// characters. Two such names are equal as `String`s (canonical equivalence, what the parser's
/// `Dictionary` compares) exactly when their bytes are equal: each is its own normalization
/// form C, the one spelling of its equivalence class.
///
/// A character qualifies when its combining class is 0, it is its own NFC (not a singleton like
/// the Kelvin sign, whose NFC is `K`), and it cannot be the second of a canonical composition:
/// Hangul jamo and the scripts whose vowel signs of combining class 0 compose (Indic, Sinhala,
/// Myanmar, Balinese) are left out whole, and so is everything beyond the Basic Multilingual
/// Plane (the Brahmi family among others). ASCII always qualifies. A name with another character
/// is compared as a `String` (`TrackedMemberNames`).
struct ComposedNameCheck {
    /// Whether each non-ASCII scalar met so far qualifies.
    private var known: [UInt32: Bool] = [:]

    /// Whether `content`, a string token's well-formed UTF-8 content, is plain: no escape and
    /// only characters that qualify.
    mutating func isPlain(_ content: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = content.count
        while index < count {
            let lead = content[index]
            if lead < 0x80 {
                if lead == UInt8(ascii: "\\") { return false }
                index += 1
                continue
            }
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard index + length <= count else { return false }
            var value = UInt32(lead) & (0xFF >> (length + 1))
            for next in (index + 1)..<(index + length) { value = value << 6 | UInt32(content[next] & 0x3F) }
            index += length
            if let qualifies = known[value] {
                guard qualifies else { return false }
                continue
            }
            let qualifies = Self.qualifies(value)
            known[value] = qualifies
            guard qualifies else { return false }
        }
        return true
    }

    /// Whether the scalar `value` qualifies (see the type's documentation).
    static func qualifies(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return false }
        switch value {
        case 0x0900...0x0DFF, 0x1000...0x109F, 0x1100...0x11FF, 0x1B00...0x1B7F, 0xA960...0xA97F, 0xD7B0...0xD7FF,
            0x10000...:
            return false
        default:
            break
        }
        guard scalar.properties.canonicalCombiningClass == .notReordered else { return false }
        let alone = String(Character(scalar))
        let composed = alone.precomposedStringWithCanonicalMapping
        return composed.unicodeScalars.count == 1 && composed.unicodeScalars.first == scalar
    }
}
