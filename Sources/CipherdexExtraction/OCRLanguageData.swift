import Foundation

/// Where Tesseract's language data is and which languages are installed, checked in the calling
/// process without loading Tesseract, so a missing language fails at once with the package to
/// install.
public enum OCRLanguageData {
    /// Overrides the language-data folder, as for the `tesseract` command.
    public static let environmentKey = "TESSDATA_PREFIX"
    /// Where Debian's `tesseract-ocr-LANG` packages (Tesseract 5) put their data.
    public static let defaultFolder = "/usr/share/tesseract-ocr/5/tessdata"

    /// The folder holding `LANG.traineddata` files: `$TESSDATA_PREFIX` when it is set, else
    /// Debian's folder.
    public static var folder: String {
        if let value = ProcessInfo.processInfo.environment[environmentKey], !value.isEmpty { return value }
        return defaultFolder
    }

    /// Whether `language` is a well-formed Tesseract language code (letters, digits and `_`,
    /// at most 32 characters: `eng`, `chi_sim`, `script/Latin` is not one).
    public static func isWellFormed(_ language: String) -> Bool {
        !language.isEmpty && language.count <= 32
            && language.unicodeScalars.allSatisfy {
                ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_"
            }
    }

    /// Whether the data of `language` is installed.
    public static func isInstalled(_ language: String) -> Bool {
        isWellFormed(language) && FileManager.default.isReadableFile(atPath: folder + "/" + language + ".traineddata")
    }

    /// The Debian package that provides `language`: `tesseract-ocr-fra`, `tesseract-ocr-chi-sim`.
    public static func package(for language: String) -> String {
        "tesseract-ocr-" + language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The first of `languages` whose data is not installed, or nil when all are.
    public static func firstMissing(_ languages: [String]) -> String? {
        languages.first { !isInstalled($0) }
    }
}
