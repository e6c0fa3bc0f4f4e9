import Cipherdex

/// `--ocr [--ocr-languages eng+fra]` of `add` and `index`: OCR of scanned pages for this run.
struct OCROptions {
    /// The options' help lines.
    static let help = """
          --ocr                  recognise scanned PDF pages (no usable text layer, an image) with
                                 Tesseract, after the documents with text layers; seconds per page
          --ocr-languages LIST   Tesseract languages joined by +, such as eng+fra (default eng;
                                 implies --ocr); each needs its package (tesseract-ocr-fra)
          --ocr-document-seconds SECONDS
                                 seconds of recognition one document may take in this run
                                 (default 1800; implies --ocr); its pages past them are left for
                                 the next run
        """

    /// The languages, or nil when OCR is off.
    let languages: [String]?
    /// The budget of one document's OCR in this run, when given.
    let documentSeconds: Double?

    /// Parses the options.
    init(parsing arguments: inout Arguments) throws {
        var enabled = arguments.flag("--ocr")
        if let text = try arguments.option("--ocr-document-seconds") {
            guard let seconds = Self.seconds(text) else {
                throw CLIError.usage(
                    "--ocr-document-seconds needs a number of seconds greater than 0, such as 3600 ('\(text)' is not one)"
                )
            }
            documentSeconds = seconds
            enabled = true
        } else {
            documentSeconds = nil
        }
        if let list = try arguments.option("--ocr-languages") {
            let languages = list.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
            for language in languages where !OCRLanguageData.isWellFormed(language) {
                throw CLIError.usage(
                    "--ocr-languages needs Tesseract language codes joined by +, such as eng+fra ('\(language)' is not one)"
                )
            }
            self.languages = languages
        } else {
            languages = enabled ? ["eng"] : nil
        }
    }

    /// Turns OCR on in `library` when asked for; throws `ocrLanguageMissing` (naming the package
    /// to install) before anything is stored when a language's data is not installed.
    func apply(to library: SearchLibrary) throws {
        guard let languages else { return }
        try checkLanguages()
        library.configure {
            $0.ocr = .enabled(languages: languages)
            if let documentSeconds { $0.ocrSettings.documentSeconds = documentSeconds }
        }
    }

    /// Seconds written as digits with an optional decimal part, greater than 0 (nil otherwise).
    private static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            parts[0].utf8.count <= 9, let seconds = Double(text), seconds > 0
        else { return nil }
        return seconds
    }

    /// Throws `ocrLanguageMissing` when a language asked for has no data installed: called
    /// before the store is opened, so that nothing is touched (and no key asked for).
    func checkLanguages() throws {
        guard let languages, let missing = OCRLanguageData.firstMissing(languages) else { return }
        throw SearchError.ocrLanguageMissing(language: missing, package: OCRLanguageData.package(for: missing))
    }

    /// What OCR did for `uid`, to follow its status (`; OCR: 2 of 3 pages recognised, page 3
    /// failed: …`), or "" when its indexing ran no OCR or no page qualified.
    static func summary(uid: String, library: SearchLibrary) -> String {
        guard let status = try? library.ocrStatus(of: uid), !status.candidatePages.isEmpty else { return "" }
        var text =
            "; OCR: \(status.recognizedPages.count) of \(status.candidatePages.count) "
            + "scanned page\(status.candidatePages.count == 1 ? "" : "s") recognised"
        if status.pendingCount > 0 { text += ", \(status.pendingCount) pending" }
        for failure in status.failures {
            text += ", page \(failure.pageIndex + 1) failed: \(SearchCLI.singleLine(failure.reason))"
        }
        return text
    }
}
