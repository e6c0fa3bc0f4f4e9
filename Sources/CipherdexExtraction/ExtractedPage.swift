/// The text found on one page of a document.
public struct ExtractedPage: Codable, Sendable, Equatable {
    /// The zero-based page number.
    public var index: Int
    /// The page's text in reading order, as the extractor laid it out.
    public var text: String
    /// The text of the page's annotations (notes, free text, highlight comments...), one entry per
    /// annotation that has any, in page order.
    public var annotations: [String]
    /// Whether `text` was recognised from the page's image (OCR) rather than read from its text
    /// layer.
    public var isOCR: Bool
    /// Whether the page qualifies for OCR (its text layer is empty or nearly, and it holds an
    /// image): set only when the extraction was asked to flag such pages.
    public var needsOCR: Bool

    /// Creates a page from its parts.
    public init(index: Int, text: String, annotations: [String] = [], isOCR: Bool = false, needsOCR: Bool = false) {
        self.index = index
        self.text = text
        self.annotations = annotations
        self.isOCR = isOCR
        self.needsOCR = needsOCR
    }

    private enum CodingKeys: String, CodingKey {
        case index, text, annotations, isOCR, needsOCR
    }

    /// Decodes a page; `isOCR` and `needsOCR` default to false when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        index = try container.decode(Int.self, forKey: .index)
        text = try container.decode(String.self, forKey: .text)
        annotations = try container.decode([String].self, forKey: .annotations)
        isOCR = try container.decodeIfPresent(Bool.self, forKey: .isOCR) ?? false
        needsOCR = try container.decodeIfPresent(Bool.self, forKey: .needsOCR) ?? false
    }
}
