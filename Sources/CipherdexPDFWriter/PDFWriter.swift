internal import CPoppler

/// Generates a PDF in memory with cairo, one page per string, with `title` in its metadata.
///
/// A convenience for tests, the demo and the benchmark; see `PDFWriter.make`.
public func makePDF(pages: [String], title: String?) -> [UInt8] {
    PDFWriter.make(pages: pages, metadata: PDFMetadata(title: title))
}

/// Generates simple text PDFs in memory with cairo's PDF surface and its "toy" text API.
///
/// Each string becomes one A4 page: lines are split on newlines and wrapped to the page width
/// (at spaces, or between characters for scripts without spaces), and the font size shrinks (down
/// to 3 pt) so that the whole text fits. The toy API does no shaping and no per-glyph font
/// fallback, so each line is drawn with the first of `fontFamilies` that has a glyph for every
/// character: CJK text needs a CJK font such as WenQuanYi Zen Hei (Debian `fonts-wqy-zenhei`) or
/// Noto Sans CJK (`fonts-noto-cjk`). Text is selectable, so poppler extracts it back.
public enum PDFWriter {
    /// Font families tried in order for each line.
    public static let fontFamilies = [
        "DejaVu Sans", "WenQuanYi Zen Hei", "Noto Sans CJK JP", "Noto Sans CJK SC", "Droid Sans Fallback", "sans-serif",
    ]
    /// A4 width in points.
    static let pageWidth = 595.0
    /// A4 height in points.
    static let pageHeight = 842.0
    /// Margin on every side, in points.
    static let margin = 50.0

    /// Generates the PDF; an empty `pages` gives one blank page.
    public static func make(pages: [String], metadata: PDFMetadata) -> [UInt8] {
        let sink = ByteSink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        let surface = cairo_pdf_surface_create_for_stream(
            { closure, data, length in
                guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
                if let data, length > 0 {
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                }
                return CAIRO_STATUS_SUCCESS
            },
            context.toOpaque(), pageWidth, pageHeight)
        let fields: [(cairo_pdf_metadata_t, String?)] = [
            (CAIRO_PDF_METADATA_TITLE, metadata.title), (CAIRO_PDF_METADATA_AUTHOR, metadata.author),
            (CAIRO_PDF_METADATA_SUBJECT, metadata.subject), (CAIRO_PDF_METADATA_KEYWORDS, metadata.keywords),
            (CAIRO_PDF_METADATA_CREATOR, metadata.creator),
        ]
        for (field, value) in fields {
            if let value { cairo_pdf_surface_set_metadata(surface, field, value) }
        }
        let cr = cairo_create(surface)
        var fonts = FontCatalog()
        for text in pages.isEmpty ? [""] : pages {
            draw(text, on: cr, fonts: &fonts)
            cairo_show_page(cr)
        }
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        return sink.bytes
    }

    /// Whether one of `fontFamilies` has a glyph for every visible character of `text` (false for
    /// CJK text when no CJK font is installed: then it would come out as empty boxes).
    public static func canRender(_ text: String) -> Bool {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)
        let cr = cairo_create(surface)
        defer {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
        }
        var fonts = FontCatalog()
        return fonts.covers(text, cr: cr)
    }

    /// Lays out and draws one page's text.
    private static func draw(_ text: String, on cr: OpaquePointer?, fonts: inout FontCatalog) {
        let paragraphs = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let families = paragraphs.map { fonts.family(covering: $0, cr: cr) }
        let width = pageWidth - 2 * margin
        var size = 12.0
        var lines: [(String, String)] = []
        while true {
            lines = []
            for (paragraph, family) in zip(paragraphs, families) {
                for line in fonts.wrap(paragraph, family: family, size: size, width: width, cr: cr) {
                    lines.append((line, family))
                }
            }
            if Double(lines.count) * size * 1.3 <= pageHeight - 2 * margin || size <= 3 { break }
            size = max(3, size * 0.85)
        }
        cairo_set_source_rgb(cr, 0, 0, 0)
        var y = margin + size
        for (line, family) in lines {
            if !line.isEmpty {
                cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
                cairo_set_font_size(cr, size)
                cairo_move_to(cr, margin, y)
                cairo_show_text(cr, line)
            }
            y += size * 1.3
        }
    }
}

/// Collects the bytes cairo writes.
private final class ByteSink {
    /// Everything written so far.
    var bytes: [UInt8] = []
}
