internal import CPoppler

/// Generates image-only PDFs that look like scans, for the OCR tests and benchmark: each page's
/// text is drawn (DejaVu Serif, 11 pt, wrapped like `PDFWriter`'s pages) onto an A4 image at
/// `dpi`, turned by `skewDegrees`, blurred, given Gaussian noise, and painted into the PDF as an
/// image. The PDF has no text layer at all.
public enum ScannedPDFWriter {
    /// How a page image is degraded.
    public struct Degradation: Sendable, Hashable {
        /// Rotation of the page content, in degrees.
        public var skewDegrees: Double
        /// Box-blur passes of radius one pixel.
        public var blurPasses: Int
        /// Standard deviation of the Gaussian noise added to each pixel (0–255 scale).
        public var noise: Double
        /// Seed of the noise, so a page is the same each run.
        public var seed: UInt64
        /// The ink's gray, 0 black to 1 white, on white paper (0.1; 0.78 is faded ink).
        public var ink: Double

        /// Creates a degradation; the default is 1.5°, one blur pass, noise 12, seed 1. (Noise
        /// of 24 on every pixel makes Tesseract's layout analysis run for minutes on a page that
        /// is mostly background: the per-page limits are for such pages.)
        public init(
            skewDegrees: Double = 1.5, blurPasses: Int = 1, noise: Double = 12, seed: UInt64 = 1, ink: Double = 0.1
        ) {
            self.skewDegrees = skewDegrees
            self.blurPasses = max(0, blurPasses)
            self.noise = max(0, noise)
            self.seed = seed
            self.ink = min(1, max(0, ink))
        }

        /// No degradation: straight, sharp, clean.
        public static let none = Degradation(skewDegrees: 0, blurPasses: 0, noise: 0)
    }

    /// The PDF: one image-only A4 page per string, rendered at `dpi`, except the pages in
    /// `textLayerPages`, drawn as ordinary text (a text layer, no image).
    public static func make(
        pages: [String], dpi: Int = 300, degradation: Degradation = Degradation(), textLayerPages: Set<Int> = []
    ) -> [UInt8] {
        let sink = ScanSink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        let surface = cairo_pdf_surface_create_for_stream(
            { closure, data, length in
                guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<ScanSink>.fromOpaque(closure).takeUnretainedValue()
                if let data, length > 0 {
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                }
                return CAIRO_STATUS_SUCCESS
            },
            context.toOpaque(), PDFWriter.pageWidth, PDFWriter.pageHeight)
        let cr = cairo_create(surface)
        for (index, text) in (pages.isEmpty ? [""] : pages).enumerated() {
            if textLayerPages.contains(index) {
                cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
                cairo_set_font_size(cr, 12)
                cairo_set_source_rgb(cr, 0, 0, 0)
                cairo_move_to(cr, PDFWriter.margin, PDFWriter.margin + 12)
                cairo_show_text(cr, text)
                cairo_show_page(cr)
                continue
            }
            var pageDegradation = degradation
            pageDegradation.seed = degradation.seed &+ UInt64(index)
            let image = pageImage(text, dpi: dpi, degradation: pageDegradation)
            cairo_save(cr)
            cairo_scale(cr, 72 / Double(dpi), 72 / Double(dpi))
            cairo_set_source_surface(cr, image, 0, 0)
            cairo_paint(cr)
            cairo_restore(cr)
            cairo_surface_destroy(image)
            cairo_show_page(cr)
        }
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        return sink.bytes
    }

    /// One page's degraded image (an RGB24 surface, gray values), to be destroyed by the caller.
    private static func pageImage(_ text: String, dpi: Int, degradation: Degradation) -> OpaquePointer? {
        let scale = Double(dpi) / 72
        let width = Int((PDFWriter.pageWidth * scale).rounded(.up))
        let height = Int((PDFWriter.pageHeight * scale).rounded(.up))
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        let cr = cairo_create(surface)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_scale(cr, scale, scale)
        cairo_translate(cr, PDFWriter.pageWidth / 2, PDFWriter.pageHeight / 2)
        cairo_rotate(cr, degradation.skewDegrees * .pi / 180)
        cairo_translate(cr, -PDFWriter.pageWidth / 2, -PDFWriter.pageHeight / 2)
        cairo_set_source_rgb(cr, degradation.ink, degradation.ink, degradation.ink)
        let family = "DejaVu Serif"
        let size = 11.0
        var fonts = FontCatalog()
        var y = PDFWriter.margin + size
        cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let lines = fonts.wrap(
                String(paragraph), family: family, size: size, width: PDFWriter.pageWidth - 2 * PDFWriter.margin, cr: cr
            )
            for line in lines {
                cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
                cairo_set_font_size(cr, size)
                cairo_move_to(cr, PDFWriter.margin, y)
                cairo_show_text(cr, line)
                y += size * 1.4
            }
        }
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        degrade(surface, width: width, height: height, degradation: degradation)
        cairo_surface_mark_dirty(surface)
        return surface
    }

    /// Blurs the surface's gray levels and adds noise, in place (unsafe buffers and integers:
    /// the tests build these pages in debug builds).
    private static func degrade(_ surface: OpaquePointer?, width: Int, height: Int, degradation: Degradation) {
        guard let data = cairo_image_surface_get_data(surface), width > 2, height > 2 else { return }
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let pixels = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt32.self)
        let count = width * height
        let gray = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        defer {
            gray.deallocate()
            scratch.deallocate()
        }
        for row in 0..<height {
            let source = pixels + row * stride
            let target = gray + row * width
            for column in 0..<width { target[column] = Int32(source[column] & 0xFF) }
        }
        for _ in 0..<degradation.blurPasses {
            scratch.update(from: gray, count: count)
            for row in 0..<height {
                let line = gray + row * width
                let out = scratch + row * width
                for column in 1..<(width - 1) { out[column] = (line[column - 1] + line[column] + line[column + 1]) / 3 }
            }
            for row in 1..<(height - 1) {
                let above = scratch + (row - 1) * width
                let line = scratch + row * width
                let below = scratch + (row + 1) * width
                let out = gray + row * width
                for column in 0..<width { out[column] = (above[column] + line[column] + below[column]) / 3 }
            }
        }
        var random = SplitMix(state: degradation.seed)
        // Irwin–Hall: the sum of four uniform 16-bit values, centred, has a standard deviation of
        // 65536 / sqrt(3); scaled to `noise`.
        let scale = Int64(degradation.noise * 3.0.squareRoot() * 256)
        for row in 0..<height {
            let line = gray + row * width
            let out = pixels + row * stride
            for column in 0..<width {
                var value = Int64(line[column])
                if scale > 0 {
                    let bits = random.next()
                    let low = Int64(bits & 0xFFFF) + Int64((bits >> 16) & 0xFFFF)
                    let high = Int64((bits >> 32) & 0xFFFF) + Int64(bits >> 48)
                    let sum: Int64 = low + high - 131_072
                    value += sum * scale / (65536 * 256)
                }
                let level = UInt32(min(max(value, 0), 255))
                out[column] = level << 16 | level << 8 | level
            }
        }
    }
}

/// A small seeded generator (SplitMix64) for the noise.
private struct SplitMix {
    /// The state.
    var state: UInt64

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Collects the bytes cairo writes.
private final class ScanSink {
    /// Everything written so far.
    var bytes: [UInt8] = []
}
