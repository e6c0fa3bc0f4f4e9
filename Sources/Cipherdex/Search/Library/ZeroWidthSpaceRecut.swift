/// Tokenizer revision 5 (search migration 1007, run by `TokenizerRecut`): a bigram run goes on
/// across a zero-width space (U+200B) as across a space (`ScalarClass.isRunSpace`), and a
/// decomposed Thai or Lao AM (NIKHAHIT U+0E4D + SARA AA U+0E32; U+0ECD + U+0EB2) is one
/// character, as the composed U+0E33 / U+0EB3 always was (`ScalarClass.composedAM`). Only the
/// pages holding a zero-width space or a NIKHAHIT may be cut differently; a page holding only
/// the composed AM is cut as before.
enum ZeroWidthSpaceRecut {
    /// The revision, for `TokenizerRecut`. (The GLOB class holds U+200B, U+0E4D and U+0ECD.)
    static let revision = TokenizerRecut.Revision(
        number: 5, candidates: "body GLOB '*[\u{200B}\u{0E4D}\u{0ECD}]*'", previousEquivalent: revision4Equivalent)

    /// What revision 4 cut as the zero-width space, and revision 5 too: a separator that is not
    /// white space, so a run stops there (as `ScalarClass` treats any ASCII punctuation).
    static let separator: Unicode.Scalar = "|"

    /// The word joiner (U+2060), a format character every revision skips inside a run: put
    /// between NIKHAHIT and AA, it keeps them two characters.
    static let joiner: Unicode.Scalar = "\u{2060}"

    /// `text` with every zero-width space replaced by `separator` and a `joiner` put inside every
    /// decomposed AM: revision 5 cuts the result into the tokens, at the positions, that
    /// revision 4 cut `text` into; `text` itself when it holds neither.
    static func revision4Equivalent(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value == 0x200B || ScalarClass.isNikhahit($0.value) }) else {
            return text
        }
        var view = String.UnicodeScalarView()
        var previous: UInt32 = 0
        for scalar in text.unicodeScalars {
            if scalar.value == 0x200B {
                view.append(separator)
            } else {
                if ScalarClass.composedAM(previous, scalar.value) != nil { view.append(joiner) }
                view.append(scalar)
            }
            previous = scalar.value
        }
        return String(view)
    }
}
