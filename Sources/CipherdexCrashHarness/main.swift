import Foundation

// cipherdex-crash: kills a child performing store writes at random instants and at the Nth
// fsync or write, then checks that the store opens with every acknowledged write. See README.md.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "run":
        let passed = try HarnessRunner(options: try HarnessOptions(Array(arguments.dropFirst()))).run()
        exit(passed ? 0 : 1)
    case "child":
        guard arguments.count == 4, let operation = CrashOperation(rawValue: arguments[1]) else {
            throw HarnessError.usage(HarnessOptions.usage)
        }
        try ChildWorkload(
            operation: operation, trial: TrialLayout(directory: arguments[2]),
            fixtures: Fixtures(directory: arguments[3])
        ).run()
        exit(0)
    default:
        print(HarnessOptions.usage)
        exit(arguments.first == "--help" ? 0 : 64)
    }
} catch let error as HarnessError {
    FileHandle.standardError.write(Data("cipherdex-crash: \(error.errorDescription ?? "\(error)")\n".utf8))
    exit(error.isUsage ? 64 : 2)
} catch {
    FileHandle.standardError.write(Data("cipherdex-crash: \(TrialChecker.describe(error))\n".utf8))
    exit(2)
}
