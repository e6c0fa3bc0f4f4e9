internal import CPopplerImages

#if canImport(Glibc)
    import Glibc
#endif

/// The check of a page's images that OCR makes before rendering it (`CPopplerImages`, poppler
/// core): rendering alone cannot tell a page whose images are white from one whose images poppler
/// could not draw — a damaged JPEG decodes to white rows and is reported to no one, an image
/// cairo cannot allocate is skipped without an error — and either would be "recognised" as a
/// page without text.
///
/// Every image the page paints (`Do`, through Form XObjects too, and inline images) is measured
/// from its dictionary first, so an image too large to draw fails at once (`imageTooLarge`,
/// within a second, before any decoding); then every image object is decoded once, in full,
/// streaming: one whose dictionary poppler cannot use is `damaged`, naming the page and the
/// image. One whose data ends before its last row, or whose decoder reported errors (a scan
/// with a few bad codes, one row short), may still leave the page readable: that failure is
/// returned, not thrown, and the caller reports it only when recognition finds no text on the
/// page (a damaged JPEG renders white: no text). A page whose images all decode, white or not, passes. Linear in the page's
/// content and images (an image painted a thousand times is decoded once). Where poppler core
/// is not the release the check was built for, the check is skipped (nil): the page is rendered
/// and recognised as before it existed.
enum PageImageCheck {
    /// Checks the images of `page` (a poppler-glib `PopplerPage`, number `pageIndex + 1`), leaving
    /// `reservedBytes` of the helper's address space for the render beside the largest image.
    /// Throws what makes the page unreadable; returns the failure to report if the page then
    /// gives no text (an image cut short or with decoder errors), else nil.
    static func check(_ page: OpaquePointer, pageIndex: Int, reservedBytes: Int) throws(ExtractionError)
        -> ExtractionError?
    {
        var result = cdx_page_images_result()
        let status = cdx_poppler_check_page_images(
            UnsafeMutableRawPointer(page), Int32(pageIndex), Int64(reservedBytes), &result)
        let number = pageIndex + 1
        switch cdx_page_images_status(rawValue: UInt32(status)) {
        case CDX_PAGE_IMAGES_OK:
            return nil
        case CDX_PAGE_IMAGES_TOO_LARGE:
            throw .imageTooLarge(
                page: number, width: Int(result.width), height: Int(result.height),
                neededBytes: Int(result.needed_bytes), availableBytes: Int(result.available_bytes))
        case CDX_PAGE_IMAGES_UNDECODABLE:
            let failure = ExtractionError.damaged(
                reason: "page \(number): \(imageName(result)) cannot be decoded: \(problem(result))")
            // Missing rows or decoder errors: the page may still be readable (a text scan one
            // row short, a logo cut off beside it); only an image poppler will not draw at all
            // fails it now.
            if cdx_image_problem(rawValue: UInt32(result.problem)) == CDX_IMAGE_PROBLEM_BAD_PARAMETERS {
                throw failure
            }
            return failure
        case CDX_PAGE_IMAGES_UNAVAILABLE:
            // Another poppler release than the one the check knows: OCR goes on without it.
            return nil
        default:
            let reason = message(result)
            if reason == "out of memory" { throw .memoryLimitExceeded(bytes: addressSpaceLimit()) }
            throw .damaged(reason: "page \(number): its images could not be checked: \(reason)")
        }
    }

    /// "the image in object 12 (DCTDecode, 2480 × 3508 pixels)", or "an inline image (…)".
    static func imageName(_ result: cdx_page_images_result) -> String {
        let filter = result.filter.map { String(cString: $0) } ?? "none"
        let size = result.width > 0 && result.height > 0 ? ", \(result.width) × \(result.height) pixels" : ""
        let which =
            result.is_inline != 0
            ? "an inline image" : result.object_number > 0 ? "the image in object \(result.object_number)" : "an image"
        return "\(which) (\(filter == "none" ? "unfiltered" : filter)\(size))"
    }

    /// How the image cannot be decoded.
    static func problem(_ result: cdx_page_images_result) -> String {
        let errors = result.reported_errors == 1 ? "1 error" : "\(result.reported_errors) errors"
        switch cdx_image_problem(rawValue: UInt32(result.problem)) {
        case CDX_IMAGE_PROBLEM_BAD_PARAMETERS:
            return "its dictionary gives no size, bit depth or colour space poppler can use"
        case CDX_IMAGE_PROBLEM_DATA_ENDS:
            let reported = result.reported_errors > 0 ? " (the decoder reported \(errors))" : ""
            return "its data ends after \(result.decoded_rows) of its \(result.height) rows\(reported)"
        default:
            return "the decoder reported \(errors)"
        }
    }

    /// The result's message.
    private static func message(_ result: cdx_page_images_result) -> String {
        withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    /// RLIMIT_AS, or 0 when there is none.
    private static func addressSpaceLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int.max)
        else { return 0 }
        return Int(limit.rlim_cur)
    }
}
