// cipherdex-extract: extracts the text of PDFs in an isolated, resource-limited process.
//
// Usage: cipherdex-extract [--memory-limit BYTES] [--cpu-limit SECONDS] [--requests N]
//
// A standalone copy of the helper every executable linking Cipherdex already carries (see
// `PDFExtractionHelper`): for hosts that cannot re-run themselves (Cipherdex in a shared library,
// sanitizer builds), named by CIPHERDEX_EXTRACT_HELPER or placed next to the executable. It caps
// its own resources, then serves up to N requests (default 1) from standard input, one answer
// each on standard output, in the framed format of `HelperProtocol`. A document whose
// reading-order text takes longer than --reading-order-limit seconds gets glib's page text, and
// the helper exits after that answer. It never creates files.
// Exit status: 0 after N answers or at end of input between requests, 2 for a malformed request
// or bad arguments.

import CipherdexExtraction

#if canImport(Glibc)
    import Glibc
#endif

exit(PDFExtractionHelper.run(arguments: Array(CommandLine.arguments.dropFirst())))
