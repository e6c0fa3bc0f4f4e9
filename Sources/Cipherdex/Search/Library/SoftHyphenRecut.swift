/// Tokenizer revision 4 (search migration 1006, run by `TokenizerRecut`): a soft hyphen (U+00AD)
/// that ends a line before the rest of its word (`desoxy\u{AD}⏎corticostérone`) now makes one
/// word of it. Only the pages holding a soft hyphen may be cut differently.
enum SoftHyphenRecut {
    /// The revision, for `TokenizerRecut`.
    static let revision = TokenizerRecut.Revision(
        number: 4, candidates: "instr(body, char(173)) > 0", previousEquivalent: revision3Equivalent)

    /// `text` without the soft hyphens that revision 4 joins a word across (those directly
    /// followed by white space that holds a line break, repeated until none is left, so that a
    /// soft hyphen before another is taken too): revision 4 cuts the result into the tokens, at
    /// the positions, that revision 3 cut `text` into.
    static func revision3Equivalent(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        var changed = true
        while changed {
            changed = false
            var kept: [Unicode.Scalar] = []
            kept.reserveCapacity(scalars.count)
            for (index, scalar) in scalars.enumerated() {
                if scalar.value == 0xAD, breakFollows(scalars, after: index) {
                    changed = true
                    continue
                }
                kept.append(scalar)
            }
            scalars = kept
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Whether white space holding a line break follows `scalars[index]`.
    private static func breakFollows(_ scalars: [Unicode.Scalar], after index: Int) -> Bool {
        var next = index + 1
        while next < scalars.count {
            switch scalars[next].value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
            case 0x09, 0x20, 0xA0: next += 1
            default: return false
            }
        }
        return false
    }
}
