// cipherdex-extract: extracts the text of one PDF in an isolated, resource-limited process.
//
// Usage: cipherdex-extract [--memory-limit BYTES] [--cpu-limit SECONDS]
//
// It first caps its own resources (address space, CPU time, no core dumps, no file writes), then
// reads one request from standard input, extracts it with PDFTextExtractor and writes one answer
// to standard output, in the framed format of `HelperProtocol` (see HelperProtocol.swift). It
// never creates files. Exit status: 0 when an answer (a document or a typed error) was written,
// 2 for a malformed request or bad arguments.

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
    try ResourceLimits.apply(memoryBytes: options.memoryBytes, cpuSeconds: options.cpuSeconds)
} catch {
    FileHandle.standardError.write(Data("cipherdex-extract: \(error)\n".utf8))
    exit(2)
}

/// Everything read from standard input.
let requestBytes = StandardStreams.readAll(from: 0)
/// The decoded request.
let request: (document: [UInt8], password: String?)
do {
    request = try HelperProtocol.decodeRequest(requestBytes)
} catch {
    StandardStreams.writeAll(HelperProtocol.encodeAnswer(.failure(.unsupportedFormat("malformed helper request: \(error)"))), to: 1)
    exit(2)
}

/// The document, or the typed error to report.
let outcome: Result<ExtractedDocument, ExtractionError>
do {
    outcome = .success(try PDFTextExtractor().extract(data: request.document, password: request.password))
} catch let error as ExtractionError {
    outcome = .failure(error)
} catch {
    outcome = .failure(.damaged(reason: "\(error)"))
}
StandardStreams.writeAll(HelperProtocol.encodeAnswer(outcome), to: 1)
exit(0)
