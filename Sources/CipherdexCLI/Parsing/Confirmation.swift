import Foundation

/// A yes/no question asked on the terminal before a command that cannot be undone.
enum Confirmation {
    /// Asks `question` on standard error and reads the answer; anything but `y` or `yes` (any
    /// case), or no answer at all, throws `notConfirmed` (exit 1, nothing was done): a script
    /// that reads the status never takes a declined command for a finished one.
    static func ask(_ question: String, declined: String) throws {
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
            throw CLIError.failed(
                code: "notConfirmed", message: "\(declined): the answer was not yes; nothing was changed")
        }
    }
}
