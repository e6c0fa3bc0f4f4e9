// libFuzzer target: the CLI's argument decoding and parsing, without running any command
// (FuzzTesting/README.md). `Parsing/` and `Commands/` are symbolic links to the CLI's sources
// (an executable target cannot be imported), compiled into this target with its own entry point.
import Cipherdex
import Foundation
import FuzzSupport

/// The raw argv strings: the input split at NUL bytes (argv strings cannot hold one).
private func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
}

/// Runs `ProcessArguments.decoded` over a real C argv of `program + pieces`: it must decode
/// exactly the pieces that are valid UTF-8, or refuse the first invalid one by position.
private func decode(_ pieces: [[UInt8]]) -> [String]? {
    let strings = [Array("cipherdex".utf8)] + pieces
    var storage: [UnsafeMutablePointer<CChar>?] = strings.map { bytes in
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        pointer[bytes.count] = 0
        return pointer
    }
    storage.append(nil)
    defer { for pointer in storage { pointer?.deallocate() } }
    let firstInvalid = pieces.firstIndex { String(validating: $0, as: UTF8.self) == nil }
    return storage.withUnsafeMutableBufferPointer { argv -> [String]? in
        do {
            let decoded = try ProcessArguments.decoded(count: Int32(strings.count), values: argv.baseAddress!)
            guard firstInvalid == nil, decoded.map({ Array($0.utf8) }) == pieces else {
                fatalError("argv decoded to something other than its bytes")
            }
            return decoded
        } catch CLIError.invalidArgumentEncoding(let position, _) {
            guard let firstInvalid, position == firstInvalid + 1 else {
                fatalError("invalidArgumentEncoding names argument \(position), not the first invalid one")
            }
            return nil
        } catch {
            fatalError("argv decoding threw \(error)")
        }
    }
}

/// First byte: which command's name to put first (or, past the last command, none: the first
/// piece is the command word). The rest, split at NUL bytes, is argv. Decoding either refuses
/// the first invalid UTF-8 argument or gives the exact bytes; parsing (`init(parsing:)` and
/// `finish()`, never `run()`) throws only `CLIError` with a message, and `--help` always has a
/// help text. Nothing may trap.
private func fuzzCLIArguments(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard let selector = input.first else { return 0 }
    let commands = CipherdexCommandLine.commands
    var argvPieces = input.count > 1 ? pieces(Array(input.dropFirst())) : []
    if Int(selector) < commands.count { argvPieces.insert(Array(commands[Int(selector)].name.utf8), at: 0) }
    guard let argv = decode(argvPieces), let name = argv.first,
        let command = commands.first(where: { $0.name == name })
    else { return 0 }
    var arguments = Arguments(Array(argv.dropFirst()))
    if arguments.wantsHelp {
        guard !command.help.isEmpty else { fatalError("\(name) has no help text") }
        return 0
    }
    do {
        _ = try command.init(parsing: &arguments)
        try arguments.finish()
    } catch let error as CLIError {
        guard let message = error.errorDescription, !message.isEmpty else { fatalError("CLIError without a message") }
    } catch {
        fatalError("parsing \(name) threw a non-CLIError: \(type(of: error)) \(error)")
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzCLIArguments`.
@main
enum FuzzCLIArgumentsMain {
    static func main() { runFuzzer(fuzzCLIArguments) }
}
