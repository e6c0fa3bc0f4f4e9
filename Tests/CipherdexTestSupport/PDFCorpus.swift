import Foundation

/// The real-world PDF corpus the tests read (never copied into the repository).
public enum PDFCorpus {
    /// `$CIPHERDEX_PDF_CORPUS`, `shared/corpus/pdfs` beside the package's repository (as CI lays
    /// it out), or `/work/shared/corpus/pdfs`: the first that exists, or nil.
    public static var directory: String? {
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["CIPHERDEX_PDF_CORPUS"] { candidates.append(override) }
        // This file is Tests/CipherdexTestSupport/PDFCorpus.swift: three levels below the package.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/pdfs").path)
        candidates.append("/work/shared/corpus/pdfs")
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }
}
