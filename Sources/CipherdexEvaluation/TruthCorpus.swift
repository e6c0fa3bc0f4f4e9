import Foundation
import Synchronization

/// The evaluation's truth: each PDF's pages as `pdftotext` extracts them (plain mode, UTF-8;
/// pages separated by form feeds; each page inside its crop box), generated at run time and never
/// stored.
public struct TruthCorpus: Sendable {
    /// One PDF with its truth pages.
    public struct Document: Sendable {
        /// The file name (the UID the library gives it in a folder sync).
        public var name: String
        /// The raw text of each page.
        public var pages: [String]
    }

    /// The PDFs `pdftotext` read, in file-name order.
    public var documents: [Document]
    /// Files left out, with the reason (pdftotext failed or timed out: no truth).
    public var excluded: [(name: String, reason: String)]

    /// Whether `pdftotext` is on PATH.
    public static var pdftotextAvailable: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/pdftotext")
        }
    }

    /// Runs `pdftotext -q -enc UTF-8 FILE -` on every `.pdf` in `directory` (or only `files`), two at
    /// a time, each under `timeout` seconds (`timeout(1)`), and again inside the crop box for
    /// pages whose crop box is smaller than their media box. Exit status 0 and 99 (errors in the
    /// file, text still written) give truth; anything else, or no page, excludes the file.
    public static func load(directory: String, files: [String]? = nil, timeout: Int = 10) throws -> TruthCorpus {
        let names =
            try files
            ?? FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.lowercased().hasSuffix(".pdf")
            }.sorted()
        let results = Mutex([(String, Result<[String], TruthError>)?](repeating: nil, count: names.count))
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < names.count else { return }
                let outcome = pdftotext(directory + "/" + names[index], timeout: timeout)
                results.withLock { $0[index] = (names[index], outcome) }
            }
        }
        var corpus = TruthCorpus(documents: [], excluded: [])
        for entry in results.withLock({ $0 }) {
            guard let (name, outcome) = entry else { continue }
            switch outcome {
            case .success(let pages): corpus.documents.append(Document(name: name, pages: pages))
            case .failure(let error): corpus.excluded.append((name, error.reason))
            }
        }
        return corpus
    }

    /// Why a file has no truth.
    struct TruthError: Error {
        var reason: String
    }

    /// The pages of one PDF by `pdftotext`, each inside its crop box (`TruthCorpus+CropBox`).
    static func pdftotext(_ path: String, timeout: Int) -> Result<[String], TruthError> {
        let whole: Result<[String], TruthError>
        switch run(["pdftotext", "-q", "-enc", "UTF-8", path, "-"], timeout: timeout) {
        case .failure(let error): whole = .failure(error)
        case .success(let data):
            var pages = String(decoding: data, as: UTF8.self).components(separatedBy: "\u{0C}")
            if pages.last?.isEmpty == true { pages.removeLast() }
            // A file poppler finds no page in has no truth to search for (the store fails it
            // `damaged`).
            whole = pages.isEmpty ? .failure(TruthError(reason: "pdftotext found no page")) : .success(pages)
        }
        return whole.map { croppedToTheirCropBoxes($0, path: path, timeout: timeout) }
    }

    /// What `/usr/bin/timeout -s KILL TIMEOUT ARGUMENTS…` writes to standard output, when it exits
    /// with status 0 or 99 (poppler's tools: errors in the file, output still written).
    static func run(_ arguments: [String], timeout: Int) -> Result<Data, TruthError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-s", "KILL", "\(timeout)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(TruthError(reason: "cannot run \(arguments[0]): \(error)")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus
        guard status == 0 || status == 99 else {
            return .failure(
                TruthError(
                    reason: status == 137 || status == 124
                        ? "\(arguments[0]) timed out" : "\(arguments[0]) exit \(status)"))
        }
        return .success(data)
    }
}
