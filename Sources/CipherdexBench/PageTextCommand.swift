import Cipherdex
import Foundation

/// `cipherdex-bench page-text FILE [--page N] [--tokens] [--glib]`: the page text Cipherdex
/// extracts from a PDF, in this process (trusted input only), pages separated by form feeds as
/// `pdftotext -q -enc UTF-8 FILE -` prints them, to compare the two; `--tokens` prints each
/// page's search tokens instead, `--glib` takes glib's page text instead of the reading order.
enum PageTextCommand {
    /// Runs the command with the arguments after `page-text`; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var file: String?
        var page: Int?
        var tokens = false
        var readingOrder = true
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--page":
                index += 1
                page = index < arguments.count ? Int(arguments[index]).map { $0 - 1 } : nil
            case "--tokens": tokens = true
            case "--glib": readingOrder = false
            default: file = arguments[index]
            }
            index += 1
        }
        guard let file, let data = FileManager.default.contents(atPath: file) else {
            FileHandle.standardError.write(
                Data("usage: cipherdex-bench page-text FILE [--page N] [--tokens] [--glib]\n".utf8))
            return 64
        }
        do {
            let document = try PDFTextExtractor(readingOrderText: readingOrder).extract(
                data: Array(data), password: nil)
            for extracted in document.pages where page == nil || extracted.index == page {
                if tokens {
                    print(SearchTokenizer.tokens(in: extracted.text).map(\.text).joined(separator: " "))
                } else {
                    print(extracted.text, terminator: "\u{0C}")
                }
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
            return 1
        }
    }
}
