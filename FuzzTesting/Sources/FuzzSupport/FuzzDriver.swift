internal import CFuzzDriver
// The shared `main` of the fuzz targets (FuzzTesting/README.md).
import Foundation

/// Runs libFuzzer over `body` with the process's arguments (`-max_total_time=60`, a corpus
/// directory...) and exits with its status: 0, or non-zero after a finding.
///
/// Each target's `@main` calls this: SwiftPM renames an executable's entry point for testable
/// executables, so the targets cannot rely on libFuzzer's own `main`; they link compiler-rt's
/// `fuzzer_no_main` archive instead. `body` must trap (`fatalError`) on a finding.
public func runFuzzer(_ body: @escaping @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv, body)
    exit(status)
}
