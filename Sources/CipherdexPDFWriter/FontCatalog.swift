internal import CPoppler

/// Font choice and text measurement for `PDFWriter`, with caches for glyph coverage and advances.
struct FontCatalog {
    /// Whether a family has a glyph for a scalar, by family then scalar.
    private var coverage: [String: [Unicode.Scalar: Bool]] = [:]
    /// Advance widths at 1 pt, by family then character.
    private var advances: [String: [Character: Double]] = [:]

    /// The first of `PDFWriter.fontFamilies` with a glyph for every visible character of `text`
    /// (the first family when none has them all).
    mutating func family(covering text: String, cr: OpaquePointer?) -> String {
        let scalars = Set(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        for family in PDFWriter.fontFamilies where scalars.allSatisfy({ covers(family, $0, cr: cr) }) {
            return family
        }
        return PDFWriter.fontFamilies[0]
    }

    /// Whether any family has a glyph for every visible character of `text`.
    mutating func covers(_ text: String, cr: OpaquePointer?) -> Bool {
        let scalars = Set(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        return PDFWriter.fontFamilies.contains { family in scalars.allSatisfy { covers(family, $0, cr: cr) } }
    }

    /// Whether `family`'s toy font maps `scalar` to a real glyph (glyph 0 is "missing").
    private mutating func covers(_ family: String, _ scalar: Unicode.Scalar, cr: OpaquePointer?) -> Bool {
        if let known = coverage[family]?[scalar] { return known }
        cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, 12)
        let font = cairo_get_scaled_font(cr)
        var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
        var count: Int32 = 0
        let text = String(scalar)
        let status = cairo_scaled_font_text_to_glyphs(font, 0, 0, text, Int32(text.utf8.count), &glyphs, &count, nil, nil, nil)
        var result = false
        if status == CAIRO_STATUS_SUCCESS, let glyphs, count > 0 {
            result = (0..<Int(count)).allSatisfy { glyphs[$0].index != 0 }
        }
        if let glyphs { cairo_glyph_free(glyphs) }
        coverage[family, default: [:]][scalar] = result
        return result
    }

    /// The advance of `character` in `family` at `size` points.
    private mutating func advance(_ character: Character, family: String, size: Double, cr: OpaquePointer?) -> Double {
        if let known = advances[family]?[character] { return known * size }
        cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, 1)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, String(character), &extents)
        advances[family, default: [:]][character] = extents.x_advance
        return extents.x_advance * size
    }

    /// `paragraph` broken into lines no wider than `width`: at the last space when there is one,
    /// otherwise between characters.
    mutating func wrap(_ paragraph: String, family: String, size: Double, width: Double, cr: OpaquePointer?) -> [String] {
        var lines: [String] = []
        var current: [Character] = []
        var currentWidth = 0.0
        for character in paragraph {
            let step = advance(character, family: family, size: size, cr: cr)
            if currentWidth + step > width, !current.isEmpty {
                if let space = current.lastIndex(of: " "), space > 0 {
                    lines.append(String(current[..<space]))
                    current = Array(current[(space + 1)...])
                } else {
                    lines.append(String(current))
                    current = []
                }
                currentWidth = current.reduce(0) { $0 + advance($1, family: family, size: size, cr: cr) }
            }
            current.append(character)
            currentWidth += step
        }
        lines.append(String(current))
        return lines
    }
}
