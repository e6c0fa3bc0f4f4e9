import Foundation

/// The process's arguments read from the raw `argv` bytes.
///
/// `CommandLine.arguments` repairs invalid UTF-8 into U+FFFD, so two different byte strings
/// (two document ids, say) would reach the commands as one. Every argument is decoded strictly
/// instead, and one that is not valid UTF-8 is refused before any command runs.
enum ProcessArguments {
    /// The arguments after the program name; throws `CLIError.invalidArgumentEncoding` naming
    /// the first argument that is not valid UTF-8.
    static func decoded(
        count: Int32, values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    ) throws -> [String] {
        var arguments: [String] = []
        for position in 1..<max(Int(count), 1) {
            guard let pointer = values[position] else { break }
            let length = strlen(pointer)
            let decoded = pointer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                String(validating: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
            }
            guard let argument = decoded else {
                let option = arguments.last.flatMap { $0.hasPrefix("-") ? $0 : nil }
                throw CLIError.invalidArgumentEncoding(position: position, option: option)
            }
            arguments.append(argument)
        }
        return arguments
    }
}
