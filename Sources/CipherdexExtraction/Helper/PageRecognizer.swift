internal import CPopplerRuntime
internal import CTesseract
import Foundation

/// OCR of one PDF page in the extraction helper: the page is rendered with poppler-glib and
/// cairo to an in-memory grayscale image and recognised by Tesseract through its C API. No
/// image, text or Tesseract file ever touches the disk (the helper cannot write files anyway:
/// RLIMIT_FSIZE 0).
///
/// libtesseract is loaded (dlopen, `CTesseract`) when the first page is recognised, so only the
/// helpers that do OCR map it. Keeps one Tesseract engine for the last languages asked for, so
/// a helper that serves many pages loads the language data once. Used by one thread (the
/// helper's request loop).
final class PageRecognizer {
    /// Tesseract's functions, once loaded.
    private var tesseract: cdx_tesseract_api?
    /// The engine and the languages it was initialised with.
    private var engine: (api: OpaquePointer, languages: String)?

    deinit { closeEngine() }

    /// The text of page `request.pageIndex` of the PDF in `data`, recognised in
    /// `request.languages`, as a one-page document (the page's `isOCR` set). Throws `.timedOut`
    /// when recognition passes `request.deadlineSeconds`; `.imageTooLarge` or `.damaged` when an
    /// image of the page is too large to draw or cannot be decoded (`PageImageCheck`, before
    /// rendering); `.damaged` when the page cannot be rendered or the language data cannot be
    /// loaded.
    func recognize(data: [UInt8], password: String?, request: OCRPageRequest) throws -> ExtractedDocument {
        let started = ContinuousClock.now
        let poppler = try PopplerLibraries.api()
        let document = try PDFTextExtractor.openDocument(data, password: password, poppler)
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(document)) }
        let pageCount = Int(poppler.poppler_document_get_n_pages(document))
        guard request.pageIndex >= 0, request.pageIndex < pageCount,
            let page = poppler.poppler_document_get_page(document, Int32(request.pageIndex))
        else {
            throw ExtractionError.damaged(reason: "the document has no page \(request.pageIndex + 1)")
        }
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        let size = try Self.renderSize(page, dpi: request.dpi, maximumPixels: request.maximumPixels, poppler)
        // Before rendering: poppler draws an image it cannot decode, or cairo cannot allocate, as
        // white, without an error. The render's surface and gray copy stay beside the largest
        // image, with room for poppler's own work.
        let suspect = try PageImageCheck.check(
            page, pageIndex: request.pageIndex, reservedBytes: size.width * size.height * 5 + Self.renderSlackBytes)
        var image = try Self.render(page, size: size, poppler)
        image.stretchContrast()
        let tess = try loaded()
        let api = try engine(for: request.languages, tess)
        let remaining = request.deadlineSeconds - (ContinuousClock.now - started) / .seconds(1)
        guard remaining > 0 else { throw ExtractionError.timedOut(seconds: request.deadlineSeconds) }
        let text: String? = image.pixels.withUnsafeBufferPointer { pixels in
            tess.set_image(api, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
            tess.set_source_resolution(api, Int32(image.dpi))
            let monitor = tess.monitor_create()
            defer { tess.monitor_delete(monitor) }
            tess.monitor_set_deadline_msecs(monitor, Int32(min(remaining * 1000, Double(Int32.max))))
            guard tess.recognize(api, monitor) == 0, let raw = tess.get_utf8_text(api) else { return nil }
            defer { tess.delete_text(raw) }
            return String(cString: raw)
        }
        tess.clear(api)
        // Tesseract stops at its deadline and keeps what it had: a partial page is a failure.
        if (ContinuousClock.now - started) / .seconds(1) >= request.deadlineSeconds {
            throw ExtractionError.timedOut(seconds: request.deadlineSeconds)
        }
        // A failed recognition is not a page without text.
        guard let text else { throw ExtractionError.damaged(reason: "Tesseract could not recognise the page") }
        let tidied = Self.tidy(text)
        // An image whose decoder reported errors: its text is kept when there is any; a page
        // without text is that image's failure, not a blank page.
        if let suspect, tidied.allSatisfy(\.isWhitespace) { throw suspect }
        return ExtractedDocument(
            title: nil, pages: [ExtractedPage(index: request.pageIndex, text: tidied, isOCR: true)])
    }

    /// A rendered page: 8-bit gray, one byte per pixel, rows without padding.
    struct GrayImage {
        /// Width in pixels.
        var width: Int
        /// Height in pixels.
        var height: Int
        /// The resolution it was rendered at.
        var dpi: Int
        /// `width * height` bytes, 0 black to 255 white.
        var pixels: [UInt8]

        /// Stretches a low-contrast page's grays to the whole range: the darkest 0.1% of pixels
        /// and below become black, the lightest 0.1% and above white. Sauvola's thresholding
        /// (below) makes light ink white: faded ink (gray 200 on white) or gray ink on gray paper
        /// (150 on 200) gave no text at all, though Tesseract's own reads them. A page with
        /// ordinary contrast (its darkest and lightest grays 200 or more apart) or none (a blank
        /// page: less than 24 apart) is left as it is.
        mutating func stretchContrast() {
            guard !pixels.isEmpty else { return }
            var histogram = [Int](repeating: 0, count: 256)
            for pixel in pixels { histogram[Int(pixel)] += 1 }
            let tail = max(1, pixels.count / 1000)
            var low = 0
            var seen = 0
            while low < 255 && seen + histogram[low] < tail {
                seen += histogram[low]
                low += 1
            }
            var high = 255
            seen = 0
            while high > 0 && seen + histogram[high] < tail {
                seen += histogram[high]
                high -= 1
            }
            let range = high - low
            guard range >= 24 && range < 200 else { return }
            var table = [UInt8](repeating: 0, count: 256)
            for value in 0..<256 {
                table[value] = UInt8(max(0, min(255, (value - low) * 255 / range)))
            }
            for index in pixels.indices { pixels[index] = table[Int(pixels[index])] }
        }
    }

    /// Address space the image check leaves for poppler's work during the render, beside the
    /// page's surfaces and the largest image.
    static let renderSlackBytes = 64 << 20

    /// The pixel size and resolution `page` is rendered at: `dpi`, lower when the image would
    /// exceed `maximumPixels` or cairo's 32767 pixels a side.
    static func renderSize(_ page: OpaquePointer, dpi: Int, maximumPixels: Int, _ poppler: cdx_poppler_api) throws
        -> (width: Int, height: Int, resolution: Double)
    {
        var widthPoints = 0.0
        var heightPoints = 0.0
        poppler.poppler_page_get_size(page, &widthPoints, &heightPoints)
        guard widthPoints.isFinite, heightPoints.isFinite, widthPoints >= 1, heightPoints >= 1 else {
            throw ExtractionError.damaged(reason: "the page has no size")
        }
        var resolution = Double(dpi)
        let pixelsAtDPI = widthPoints * heightPoints * (resolution / 72) * (resolution / 72)
        if pixelsAtDPI > Double(maximumPixels) { resolution *= (Double(maximumPixels) / pixelsAtDPI).squareRoot() }
        // cairo's image surfaces are at most 32767 pixels a side.
        resolution = min(resolution, 32767 * 72 / max(widthPoints, heightPoints))
        let scale = resolution / 72
        let width = max(1, Int((widthPoints * scale).rounded(.up)))
        let height = max(1, Int((heightPoints * scale).rounded(.up)))
        return (width, height, resolution)
    }

    /// Renders `page` on white at `size` (`renderSize`) and converts it to gray.
    static func render(
        _ page: OpaquePointer, size: (width: Int, height: Int, resolution: Double), _ poppler: cdx_poppler_api
    ) throws -> GrayImage {
        let (width, height, resolution) = size
        let scale = resolution / 72
        guard let surface = poppler.cairo_image_surface_create(CDX_CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        else {
            throw ExtractionError.memoryLimitExceeded(bytes: width * height * 4)
        }
        defer { poppler.cairo_surface_destroy(surface) }
        guard poppler.cairo_surface_status(surface) == CDX_CAIRO_STATUS_SUCCESS else {
            throw ExtractionError.memoryLimitExceeded(bytes: width * height * 4)
        }
        let context = poppler.cairo_create(surface)
        poppler.cairo_set_source_rgb(context, 1, 1, 1)
        poppler.cairo_paint(context)
        poppler.cairo_scale(context, scale, scale)
        poppler.poppler_page_render(page, context)
        // A drawing cairo could not finish (an image too large for the helper's memory limit)
        // leaves the page white: never OCR that as a blank page.
        let drawing = poppler.cairo_status(context)
        poppler.cairo_destroy(context)
        guard drawing == CDX_CAIRO_STATUS_SUCCESS else {
            if drawing == CDX_CAIRO_STATUS_NO_MEMORY {
                throw ExtractionError.memoryLimitExceeded(bytes: width * height * 4)
            }
            throw ExtractionError.damaged(reason: "the page could not be rendered (cairo status \(drawing))")
        }
        poppler.cairo_surface_flush(surface)
        guard let data = poppler.cairo_image_surface_get_data(surface) else {
            throw ExtractionError.damaged(reason: "the page could not be rendered")
        }
        let stride = Int(poppler.cairo_image_surface_get_stride(surface))
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            for row in 0..<height {
                let source = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                let target = buffer.baseAddress! + row * width
                for column in 0..<width {
                    // CAIRO_FORMAT_RGB24: 0x00RRGGBB in native order.
                    let pixel = source[column]
                    let red = (pixel >> 16) & 0xFF
                    let green = (pixel >> 8) & 0xFF
                    let blue = pixel & 0xFF
                    target[column] = UInt8((red * 77 + green * 150 + blue * 29) >> 8)
                }
            }
            count = width * height
        }
        return GrayImage(width: width, height: height, dpi: Int(resolution.rounded()), pixels: pixels)
    }

    /// Tesseract's functions, loading libtesseract on first use.
    private func loaded() throws -> cdx_tesseract_api {
        if let tesseract { return tesseract }
        var api = cdx_tesseract_api()
        var error: UnsafePointer<CChar>?
        guard cdx_tesseract_load(&api, &error) == 0 else {
            let reason = error.map { String(cString: $0) } ?? "unknown error"
            throw ExtractionError.damaged(reason: "Tesseract could not be loaded (install libtesseract5): \(reason)")
        }
        tesseract = api
        return api
    }

    /// The engine for `languages`, initialised on first use (and again for other languages).
    private func engine(for languages: String, _ tess: cdx_tesseract_api) throws -> OpaquePointer {
        if let engine, engine.languages == languages { return engine.api }
        closeEngine()
        // The environment's fault, not the document's: `libraryUnavailable`, a failure the next
        // indexing tries again (it was `damaged`, kept for good with the page).
        guard let api = tess.create() else {
            throw ExtractionError.libraryUnavailable(reason: "Tesseract could not start")
        }
        guard tess.init3(api, OCRLanguageData.folder, languages) == 0 else {
            tess.destroy(api)
            let missing = OCRLanguageData.firstMissing(languages.split(separator: "+").map(String.init))
            throw ExtractionError.libraryUnavailable(
                reason: "Tesseract could not load the language data for \(languages)"
                    + (missing.map { ": install \(OCRLanguageData.package(for: $0))" } ?? ""))
        }
        // No debug output: a page's words must not reach standard error.
        _ = tess.set_variable(api, "debug_file", "/dev/null")
        // Sauvola's local thresholding: with the default global Otsu, a page that is mostly noisy
        // background (one short line on a grainy scan) binarises into a field of specks that
        // Tesseract's layout analysis takes minutes over (1.6 s with Sauvola, same text).
        _ = tess.set_variable(api, "thresholding_method", "2")
        engine = (api, languages)
        return api
    }

    /// Ends and frees the engine.
    private func closeEngine() {
        guard let engine, let tess = tesseract else { return }
        tess.end(engine.api)
        tess.destroy(engine.api)
        self.engine = nil
    }

    /// Tesseract's text with its trailing form feed and blank-line runs trimmed.
    static func tidy(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.replacingOccurrences(of: "\u{0C}", with: "")
            if trimmed.trimmingCharacters(in: .whitespaces).isEmpty {
                if let last = lines.last, !last.isEmpty { lines.append("") }
            } else {
                lines.append(Substring(trimmed))
            }
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
