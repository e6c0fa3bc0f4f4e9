/// Tokenizer revision 6 (search migration 1008, run by `TokenizerRecut`): a word hyphenated at a
/// line end (`log-⏎likelihood`) is found whole and by its parts (`TokenScanner.hyphenBreakGroup`).
/// Only the pages holding a hyphen-minus directly followed by a line break may be cut
/// differently. (PDF text extraction dropped such hyphens, joining the parts, before this
/// revision: pages extracted then hold one only where poppler kept it, at the end of a flow.)
enum LineEndHyphenRecut {
    /// The revision, for `TokenizerRecut`.
    static let revision = TokenizerRecut.Revision(
        number: 6, candidates: "(instr(body, '-' || char(10)) > 0 OR instr(body, '-' || char(13)) > 0)",
        previousEquivalent: revision5Equivalent)

    /// What revision 5 cut as a hyphen-minus before a line break, and revision 6 too: a separator
    /// (as `ScalarClass` treats any ASCII punctuation) that joins nothing.
    static let separator: UInt8 = UInt8(ascii: "|")

    /// `text` with every hyphen-minus directly followed by a line break (LF or CR) replaced by
    /// `separator`: revision 6 cuts the result into the tokens, at the positions, that revision 5
    /// cut `text` into; `text` itself when it holds none.
    static func revision5Equivalent(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var changed = false
        for index in bytes.indices.dropLast() where bytes[index] == UInt8(ascii: "-") {
            if bytes[index + 1] == 0x0A || bytes[index + 1] == 0x0D {
                bytes[index] = separator
                changed = true
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }
}
