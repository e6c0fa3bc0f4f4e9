import Foundation

/// `cipherdex-bench [SUITE...] [--quick]`: runs benchmark suites and prints markdown for
/// BENCHMARKS.md. Suites: store, attachments, search (default: all).
let arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
var suites = arguments.filter { !$0.hasPrefix("--") }
if suites.isEmpty { suites = ["store", "attachments"] }
print("# cipherdex-bench \(arguments.joined(separator: " "))\n")
print(
    "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB\n"
)
do {
    for suite in suites {
        switch suite {
        case "store": print(try StoreSuite.run(quick: quick))
        case "attachments": print(try AttachmentSuite.run(quick: quick))
        default:
            FileHandle.standardError.write(Data("cipherdex-bench: unknown suite \(suite)\n".utf8))
            exit(64)
        }
    }
} catch {
    FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
    exit(1)
}
