import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// OCR quality through the whole pipeline: real prose (public-domain paragraphs, committed
/// here) rendered at 300 dpi with skew, noise and blur as an image-only PDF, indexed with OCR;
/// at least 95% of the distinctive words (five letters or more, on one page only) must be found
/// on their page by a search.
final class SearchOCRQualityTests: XCTestCase {
    /// Jane Austen, Pride and Prejudice (1813), chapter 1; Charles Dickens, A Tale of Two Cities
    /// (1859), book 1, chapter 1; Herman Melville, Moby-Dick (1851), chapter 1.
    static let pages = [
        """
        It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in \
        want of a wife. However little known the feelings or views of such a man may be on his first entering \
        a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is \
        considered the rightful property of some one or other of their daughters. "My dear Mr. Bennet," said \
        his lady to him one day, "have you heard that Netherfield Park is let at last?" Mr. Bennet replied \
        that he had not. "But it is," returned she; "for Mrs. Long has just been here, and she told me all \
        about it." Mr. Bennet made no answer. "Do you not want to know who has taken it?" cried his wife \
        impatiently. "You want to tell me, and I have no objection to hearing it." This was invitation enough.
        """,
        """
        It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of \
        foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, \
        it was the season of Darkness, it was the spring of hope, it was the winter of despair, we had \
        everything before us, we had nothing before us, we were all going direct to Heaven, we were all going \
        direct the other way. In short, the period was so far like the present period, that some of its \
        noisiest authorities insisted on its being received, for good or for evil, in the superlative degree \
        of comparison only. There were a king with a large jaw and a queen with a plain face, on the throne \
        of England; there were a king with a large jaw and a queen with a fair face, on the throne of France.
        """,
        """
        Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, \
        and nothing particular to interest me on shore, I thought I would sail about a little and see the \
        watery part of the world. It is a way I have of driving off the spleen and regulating the circulation. \
        Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly November in my \
        soul; whenever I find myself involuntarily pausing before coffin warehouses, and bringing up the rear \
        of every funeral I meet; and especially whenever my hypos get such an upper hand of me, that it \
        requires a strong moral principle to prevent me from deliberately stepping into the street, and \
        methodically knocking people's hats off, then, I account it high time to get to sea as soon as I can.
        """,
    ]

    /// Words of five letters or more that occur on exactly one page, by page.
    static func distinctiveWords() -> [Int: Set<String>] {
        let perPage = pages.map { text in
            Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count >= 5 })
        }
        var result: [Int: Set<String>] = [:]
        for (index, words) in perPage.enumerated() {
            let elsewhere = perPage.enumerated().filter { $0.offset != index }.reduce(into: Set<String>()) {
                $0.formUnion($1.element)
            }
            result[index] = words.subtracting(elsewhere)
        }
        return result
    }

    func testDistinctiveWordsOfScannedProseAreFoundOnTheirPage() throws {
        // Each page its own skew (both ways), noise and blur.
        var pdfPages: [[UInt8]] = []
        for (index, skew) in [1.5, -2.0, 0.8].enumerated() {
            pdfPages.append(
                ScannedPDFWriter.make(
                    pages: [Self.pages[index]],
                    degradation: .init(skewDegrees: skew, blurPasses: 1, noise: 12, seed: UInt64(index + 1))))
        }
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        store.library.configure { $0.ocr = .enabled(languages: ["eng"]) }
        for (index, pdf) in pdfPages.enumerated() {
            try store.library.add(data: Data(pdf), uid: "scan-\(index).pdf", fileExtension: "pdf")
        }
        try store.library.waitUntilIndexed()
        var options = SearchOptions()
        options.exactWordsOnly = true
        var found = 0
        var missed: [String] = []
        let words = Self.distinctiveWords()
        for (index, expected) in words {
            XCTAssertEqual(try store.library.ocrStatus(of: "scan-\(index).pdf")?.recognizedPages, [0])
            for word in expected.sorted() {
                let results = try store.library.search(word, options: options)
                if results.documents["scan-\(index).pdf"] == [0] {
                    found += 1
                } else {
                    missed.append(word)
                }
            }
        }
        let total = words.values.reduce(0) { $0 + $1.count }
        XCTAssertGreaterThan(total, 100)
        let recall = Double(found) / Double(total)
        XCTAssertGreaterThanOrEqual(recall, 0.95, "found \(found) of \(total); missed: \(missed)")
        print("OCR quality: \(found) of \(total) distinctive words found on their page (\(recall)); missed: \(missed)")
    }
}
