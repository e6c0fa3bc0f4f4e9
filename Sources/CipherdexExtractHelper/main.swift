// cipherdex-extract: extracts the text of PDFs in an isolated, resource-limited process.
//
// Usage: cipherdex-extract [--memory-limit BYTES] [--cpu-limit SECONDS] [--requests N]
//
// It first caps its own resources (address space, a lifetime CPU cap, no core dumps, no file
// writes), then serves up to N requests (default 1) from standard input, one after another: for
// each it gives itself a fresh CPU budget of --cpu-limit seconds, extracts the PDF with
// PDFTextExtractor and writes one answer to standard output, in the framed format of
// `HelperProtocol` (see HelperProtocol.swift). A document whose reading-order text takes longer
// than --reading-order-limit seconds gets glib's page text, and the helper exits after that
// answer (the stalled poppler call goes on in its thread). It never creates files. Exit status: 0 after N
// answers or at end of input between requests, 2 for a malformed request or bad arguments.

import CipherdexExtraction
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The parsed command line.
let options: HelperOptions
do {
    options = try HelperOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("cipherdex-extract: \(error)\n\(HelperOptions.usage)\n".utf8))
    exit(2)
}
if options.showHelp {
    print(HelperOptions.usage)
    exit(0)
}

do {
    try ResourceLimits.apply(
        memoryBytes: options.memoryBytes, cpuSeconds: options.cpuSeconds, requests: options.requests)
} catch {
    FileHandle.standardError.write(Data("cipherdex-extract: \(error)\n".utf8))
    exit(2)
}

for _ in 0..<options.requests {
    /// The next request, nil at end of input.
    let request: (document: [UInt8], password: String?)
    do {
        guard let next = try HelperProtocol.readRequest({ StandardStreams.read($0, from: 0) }) else { exit(0) }
        request = next
    } catch {
        StandardStreams.writeAll(
            HelperProtocol.encodeAnswer(.failure(.unsupportedFormat("malformed helper request: \(error)"))), to: 1)
        exit(2)
    }
    do {
        try ResourceLimits.startRequest(cpuSeconds: options.cpuSeconds)
    } catch {
        FileHandle.standardError.write(Data("cipherdex-extract: \(error)\n".utf8))
        exit(2)
    }

    /// The document, or the typed error to report.
    let outcome: Result<ExtractedDocument, ExtractionError>
    /// Whether the reading-order text is still running in its thread (then this helper exits).
    var stalled = false
    do {
        let extractor = PDFTextExtractor(
            readingOrderTimeLimit: options.readingOrderSeconds ?? Double(options.cpuSeconds) / 2)
        let extracted = try extractor.extractNotingStall(data: request.document, password: request.password)
        outcome = .success(extracted.document)
        stalled = extracted.readingOrderStalled
    } catch let error as ExtractionError {
        outcome = .failure(error)
    } catch {
        outcome = .failure(.damaged(reason: "\(error)"))
    }
    StandardStreams.writeAll(HelperProtocol.encodeAnswer(outcome), to: 1)
    // A stalled poppler call cannot be stopped but with the process: answer, then end.
    if stalled { _exit(0) }
}
exit(0)
