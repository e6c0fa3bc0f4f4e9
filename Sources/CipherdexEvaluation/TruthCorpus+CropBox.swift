import Foundation

extension TruthCorpus {
    /// A page's boxes as `pdfinfo -box` prints them (points, origin at the bottom left).
    struct PageBoxes: Equatable {
        var rotation = 0
        var mediaBox: [Double] = []
        var cropBox: [Double] = []

        /// The crop box as `pdftotext -x -y -W -H` takes it (whole points from the media box's
        /// top left, rounded outwards), or nil when it is the media box or the page is rotated
        /// (the area would be in rotated coordinates).
        var area: [Int]? {
            guard rotation % 360 == 0, mediaBox.count == 4, cropBox.count == 4, cropBox != mediaBox else { return nil }
            let left = Int((cropBox[0] - mediaBox[0]).rounded(.down))
            let top = Int((mediaBox[3] - cropBox[3]).rounded(.down))
            let width = Int((cropBox[2] - mediaBox[0]).rounded(.up)) - left
            let height = Int((mediaBox[3] - cropBox[1]).rounded(.up)) - top
            guard left >= 0, top >= 0, width > 0, height > 0 else { return nil }
            return [left, top, width, height]
        }
    }

    /// `pages` (of the PDF at `path`, by `pdftotext`, which reads each page's whole media box)
    /// with every page whose crop box is smaller read again inside its crop box: what a viewer
    /// shows and the store indexes. (Text outside it, such as a printer's notes above a trimmed
    /// page, is in no reader's view; `pdftotext -cropbox` does not leave it out.) Consecutive
    /// pages of the same area are read by one `pdftotext -f -l -x -y -W -H`. A page whose boxes
    /// cannot be read, or whose second reading fails, keeps its whole text.
    static func croppedToTheirCropBoxes(_ pages: [String], path: String, timeout: Int) -> [String] {
        guard
            case .success(let data) = run(
                ["pdfinfo", "-box", "-f", "1", "-l", "\(pages.count)", path], timeout: timeout)
        else { return pages }
        let boxes = pageBoxes(String(decoding: data, as: UTF8.self))
        var pages = pages
        var index = 0
        while index < pages.count {
            guard let area = boxes[index + 1]?.area else {
                index += 1
                continue
            }
            var last = index
            while last + 1 < pages.count, boxes[last + 2]?.area == area { last += 1 }
            let arguments =
                ["pdftotext", "-q", "-enc", "UTF-8", "-f", "\(index + 1)", "-l", "\(last + 1)"]
                + zip(["-x", "-y", "-W", "-H"], area).flatMap { [$0, "\($1)"] } + [path, "-"]
            if case .success(let data) = run(arguments, timeout: timeout) {
                let cropped = String(decoding: data, as: UTF8.self).components(separatedBy: "\u{0C}")
                if cropped.count >= last - index + 1 {
                    for page in index...last { pages[page] = cropped[page - index] }
                }
            }
            index = last + 1
        }
        return pages
    }

    /// Each page's rotation, media box and crop box from `pdfinfo -box` output, by page number.
    static func pageBoxes(_ output: String) -> [Int: PageBoxes] {
        var boxes: [Int: PageBoxes] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4, fields[0] == "Page", let page = Int(fields[1]) else { continue }
            switch fields[2] {
            case "rot:": boxes[page, default: PageBoxes()].rotation = Int(fields[3]) ?? 0
            case "MediaBox:": boxes[page, default: PageBoxes()].mediaBox = fields.dropFirst(3).compactMap { Double($0) }
            case "CropBox:": boxes[page, default: PageBoxes()].cropBox = fields.dropFirst(3).compactMap { Double($0) }
            default: continue
            }
        }
        return boxes
    }
}
