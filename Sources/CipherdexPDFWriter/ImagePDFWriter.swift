/// Writes PDFs whose pages are images given byte for byte — their dictionaries as told, their
/// data as given, damaged or not — for the tests of what OCR does with images poppler cannot
/// draw. Each page (612 × 792 points) is covered by its images as horizontal strips, top to
/// bottom, painted from the page's content, from a Form XObject, or inline.
public enum ImagePDFWriter {
    /// One image: its dictionary's entries and its stream's bytes.
    public struct Image: Sendable {
        /// /Width and /Height, as written (any value, however large).
        public var width: Int
        public var height: Int
        /// /ColorSpace (a device colour space's name).
        public var colorSpace: String
        /// /BitsPerComponent.
        public var bitsPerComponent: Int
        /// /Filter (`DCTDecode`…), or nil for none.
        public var filter: String?
        /// /DecodeParms' entries (`/K -1 /Columns 612`), or nil for none.
        public var decodeParms: String?
        /// The stream's bytes, not checked against the dictionary.
        public var data: [UInt8]

        /// Creates an image.
        public init(
            width: Int, height: Int, colorSpace: String = "DeviceGray", bitsPerComponent: Int = 8,
            filter: String? = nil, decodeParms: String? = nil, data: [UInt8]
        ) {
            self.width = width
            self.height = height
            self.colorSpace = colorSpace
            self.bitsPerComponent = bitsPerComponent
            self.filter = filter
            self.decodeParms = decodeParms
            self.data = data
        }

        /// An unfiltered 8-bit gray image of one `level` (255 white).
        public static func gray(width: Int, height: Int, level: UInt8) -> Image {
            Image(width: width, height: height, data: [UInt8](repeating: level, count: width * height))
        }

        /// A JPEG (`DCTDecode`) gray image of one `level` (255 white), `UniformJPEG`.
        public static func jpeg(width: Int, height: Int, level: UInt8) -> Image {
            Image(
                width: width, height: height, filter: "DCTDecode",
                data: UniformJPEG.gray(width: width, height: height, level: level))
        }
    }

    /// How a page paints its images.
    public enum Painting: Sendable {
        /// `/ImN Do` in the page's content.
        case xobjects
        /// `/Fm0 Do` in the page's content, the Form XObject painting `/ImN Do`.
        case form
        /// As `form`, but the form's own `/Resources` is empty: `/ImN` are found in the page's
        /// resources, where a PDF reader looks next for a name a form's resources lack.
        case formUsingThePageResources
        /// BI … ID … EI in the page's content (the data must not hold "EI" between white space).
        case inline
    }

    /// One page.
    public struct Page: Sendable {
        /// Its images, top to bottom.
        public var images: [Image]
        /// How they are painted.
        public var painting: Painting

        /// Creates a page.
        public init(images: [Image], painting: Painting = .xobjects) {
            self.images = images
            self.painting = painting
        }
    }

    /// The PDF (1.4, an uncompressed cross-reference table).
    public static func make(pages: [Page]) -> [UInt8] {
        var objects: [[UInt8]] = [[], []]  // catalog and page tree, written last
        var pageNumbers: [Int] = []
        for page in pages {
            var strips: [String] = []
            var xobjects: [String] = []
            let stripHeight = 792.0 / Double(max(page.images.count, 1))
            var inlineContent: [UInt8] = []
            for (index, image) in page.images.enumerated() {
                let y = 792.0 - stripHeight * Double(index + 1)
                let place = "q 612 0 0 \(stripHeight) 0 \(y) cm "
                if page.painting == .inline {
                    let filter =
                        (image.filter.map { " /F /\($0)" } ?? "") + (image.decodeParms.map { " /DP << \($0) >>" } ?? "")
                    inlineContent +=
                        Array(
                            (place + "BI /W \(image.width) /H \(image.height) /CS /\(image.colorSpace) "
                                + "/BPC \(image.bitsPerComponent)\(filter) ID ").utf8) + image.data
                        + Array("\nEI Q\n".utf8)
                    continue
                }
                objects.append(imageObject(image))
                xobjects.append("/Im\(index) \(objects.count) 0 R")
                strips.append(place + "/Im\(index) Do Q")
            }
            var resources = "<< /XObject << \(xobjects.joined(separator: " ")) >> >>"
            var content = Array(strips.joined(separator: "\n").utf8)
            switch page.painting {
            case .inline:
                resources = "<< >>"
                content = inlineContent
            case .form, .formUsingThePageResources:
                let own = page.painting == .form ? resources : "<< >>"
                objects.append(
                    stream(
                        dictionary: "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources \(own)",
                        data: content))
                let listed = page.painting == .form ? [] : xobjects
                resources = "<< /XObject << \((listed + ["/Fm0 \(objects.count) 0 R"]).joined(separator: " ")) >> >>"
                content = Array("/Fm0 Do".utf8)
            case .xobjects:
                break
            }
            objects.append(stream(dictionary: "", data: content))
            let contents = objects.count
            objects.append(
                Array(
                    ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources \(resources) "
                        + "/Contents \(contents) 0 R >>").utf8))
            pageNumbers.append(objects.count)
        }
        objects[0] = Array("<< /Type /Catalog /Pages 2 0 R >>".utf8)
        let kids = pageNumbers.map { "\($0) 0 R" }.joined(separator: " ")
        objects[1] = Array("<< /Type /Pages /Kids [\(kids)] /Count \(pageNumbers.count) >>".utf8)
        return serialize(objects)
    }

    /// An image XObject's stream object.
    private static func imageObject(_ image: Image) -> [UInt8] {
        let filter =
            (image.filter.map { " /Filter /\($0)" } ?? "")
            + (image.decodeParms.map { " /DecodeParms << \($0) >>" } ?? "")
        return stream(
            dictionary: "/Type /XObject /Subtype /Image /Width \(image.width) /Height \(image.height) "
                + "/ColorSpace /\(image.colorSpace) /BitsPerComponent \(image.bitsPerComponent)\(filter)",
            data: image.data)
    }

    /// A stream object with `dictionary`'s entries and its /Length.
    private static func stream(dictionary: String, data: [UInt8]) -> [UInt8] {
        Array("<< \(dictionary) /Length \(data.count) >>\nstream\n".utf8) + data + Array("\nendstream".utf8)
    }

    /// The file: header, objects numbered from 1, cross-reference table, trailer.
    private static func serialize(_ objects: [[UInt8]]) -> [UInt8] {
        var pdf = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.count)
            pdf += Array("\(index + 1) 0 obj\n".utf8) + object + Array("\nendobj\n".utf8)
        }
        let xref = pdf.count
        pdf += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            let digits = String(offset)
            pdf += Array((String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n").utf8)
        }
        pdf += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return pdf
    }
}
