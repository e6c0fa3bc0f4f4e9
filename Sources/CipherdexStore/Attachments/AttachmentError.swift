import Foundation

/// Why reading or writing an attachment file failed.
///
/// Every case names the attachment id (or, for a file being added, its path); none carries
/// plaintext or key bytes, and the messages only echo ids, paths, sizes, indices, numeric fields
/// and errno values.
public enum AttachmentError: Error, LocalizedError, Equatable, Sendable {
    /// No file exists for the attachment.
    case notFound(id: String)
    /// The header cannot be parsed: wrong magic, an unfinished write, an impossible field.
    case badHeader(id: String, reason: String)
    /// The header declares a format version this code does not know.
    case unsupportedVersion(id: String, version: Int)
    /// The authenticated header names an algorithm this machine cannot run (or does not know).
    case unsupportedAlgorithm(id: String, algorithm: Int)
    /// The header tag does not verify: tampered header, wrong master key, or a file that
    /// belongs to a different attachment id.
    case headerAuthenticationFailed(id: String)
    /// The file is shorter than the header says it must be.
    case truncated(id: String, expectedBytes: UInt64, actualBytes: UInt64)
    /// The file is longer than the header says it must be.
    case trailingData(id: String, expectedBytes: UInt64, actualBytes: UInt64)
    /// A chunk does not verify: flipped bit, reordered chunk, or a chunk from another file.
    case chunkAuthenticationFailed(id: String, chunkIndex: UInt64)
    /// An unencrypted store's attachment, read whole, does not hash to the content hash its row
    /// records (FORMAT.md 7.4): a changed byte in a file that has no tag. Thrown before the last
    /// piece is handed over; discard what was received.
    case contentHashMismatch(id: String)
    /// A read asked for bytes past the end of the attachment.
    case rangeOutOfBounds(id: String, range: Range<UInt64>, length: UInt64)
    /// A system call failed; `operation` names it and `errno` is its error number.
    case io(id: String, operation: String, errno: Int32)
    /// The attachment's file at `path` is not a regular file (`kind` says what it is: "a FIFO",
    /// "a directory", …); it was refused without being read.
    case notRegularFile(id: String, path: String, kind: String)
    /// The file to add as an attachment, at `path`, is not a regular file (a FIFO, directory,
    /// device or socket, which could block or never end); nothing was read or stored.
    case sourceNotRegularFile(path: String, kind: String)
    /// The file to add as an attachment, at `path`, does not exist (nor does a folder on its
    /// path, or a link there leads nowhere); nothing was stored.
    case sourceNotFound(path: String)
    /// The file to add as an attachment, at `path`, exists but this process may not read it
    /// (`reason`: its permissions, or a folder above it that may not be searched); nothing was
    /// stored.
    case sourceUnreadable(path: String, reason: String)
    /// The file being added, at `path`, changed while it was read: it ended after `readBytes` of
    /// the `expectedBytes` it held when opened (it shrank), or, when `readBytes` is
    /// `expectedBytes`, it was written to meanwhile (grown or overwritten in place: its size,
    /// modification or change time moved), so what was read may mix old and new content.
    /// Nothing was stored; add it again once nothing writes to it.
    case sourceChanged(path: String, expectedBytes: UInt64, readBytes: UInt64)
    /// The file to add as an attachment, at `path`, reports a size of 0 bytes but has content (a
    /// /proc or sysfs file, some FUSE files), so how much it holds cannot be known; nothing was
    /// stored (copy it to a regular file and add that).
    case sourceSizeUnknown(path: String)
    /// The attachment is held by a feature of the store (`feature`: the search index keeps each
    /// indexed document's stored original): it is not removed; remove what holds it instead.
    case heldByFeature(id: String, feature: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .notFound: return "attachmentNotFound"
        case .badHeader: return "badHeader"
        case .unsupportedVersion: return "unsupportedVersion"
        case .unsupportedAlgorithm: return "unsupportedAlgorithm"
        case .headerAuthenticationFailed: return "headerAuthenticationFailed"
        case .truncated: return "truncated"
        case .trailingData: return "trailingData"
        case .chunkAuthenticationFailed: return "chunkAuthenticationFailed"
        case .contentHashMismatch: return "contentHashMismatch"
        case .rangeOutOfBounds: return "rangeOutOfBounds"
        case .io: return "io"
        case .notRegularFile: return "notRegularFile"
        case .sourceNotRegularFile: return "sourceNotRegularFile"
        case .sourceNotFound: return "sourceNotFound"
        case .sourceUnreadable: return "sourceUnreadable"
        case .heldByFeature: return "attachmentHeld"
        case .sourceChanged: return "sourceChanged"
        case .sourceSizeUnknown: return "sourceSizeUnknown"
        }
    }

    /// A human-readable description without any secret or plaintext material.
    public var errorDescription: String? {
        switch self {
        case .notFound(let id):
            return "attachment \(id) not found"
        case .badHeader(let id, let reason):
            return "attachment \(id) has a malformed header: \(reason)"
        case .unsupportedVersion(let id, let version):
            return "attachment \(id) uses unsupported format version \(version)"
        case .unsupportedAlgorithm(let id, let algorithm):
            return "attachment \(id) uses encryption algorithm \(algorithm), which is not available on this machine"
        case .headerAuthenticationFailed(let id):
            return "attachment \(id) failed header authentication (tampered, wrong key, or another attachment's file)"
        case .truncated(let id, let expected, let actual):
            return "attachment \(id) is truncated: expected \(expected) bytes, found \(actual)"
        case .trailingData(let id, let expected, let actual):
            return "attachment \(id) has trailing data: expected \(expected) bytes, found \(actual)"
        case .chunkAuthenticationFailed(let id, let chunkIndex):
            return "attachment \(id) failed authentication in chunk \(chunkIndex)"
        case .contentHashMismatch(let id):
            return "attachment \(id) does not match its recorded content hash (the file was changed or damaged)"
        case .rangeOutOfBounds(let id, let range, let length) where range.isEmpty:
            // From `byteRange(from:through:)`: a first byte that is not there.
            let size = length == 0 ? "it is empty" : "its length is \(length) bytes, the last at offset \(length - 1)"
            return "attachment \(id): no byte at offset \(range.lowerBound) to start from (\(size))"
        case .rangeOutOfBounds(let id, let range, let length):
            return
                "attachment \(id): range \(range.lowerBound)..<\(range.upperBound) is outside its length \(length)"
        case .io(let id, let operation, let code):
            return "attachment \(id): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .notRegularFile(let id, let path, let kind):
            return "attachment \(id): its file \(path) is \(kind), not a regular file"
        case .sourceChanged(let path, let expected, let read) where read == expected:
            return "\(path) was written to while it was read (its size, modification or change time moved since it "
                + "was opened): what was read may mix its old and new content; nothing was stored (add it again once "
                + "nothing writes to it)"
        case .sourceChanged(let path, let expected, let read):
            return "\(path) changed while it was read: it held \(expected) bytes when opened and ended after \(read); "
                + "nothing was stored"
        case .heldByFeature(let id, let feature):
            return
                "attachment \(id) is held by the store's \(feature) feature (an indexed document's stored original); "
                + "remove that document from it first (which removes the attachment too when the index stored it "
                + "itself; one this store's application also added stays, to be removed again afterwards)"
        case .sourceNotRegularFile(let path, let kind):
            return "cannot add \(path) as an attachment: it is \(kind), not a regular file"
        case .sourceNotFound(let path):
            return "cannot add \(path) as an attachment: there is no such file; nothing was stored"
        case .sourceUnreadable(let path, let reason):
            return "cannot add \(path) as an attachment: it cannot be read (\(reason)); nothing was stored"
        case .sourceSizeUnknown(let path):
            return "cannot add \(path) as an attachment: \(RegularFileError.sizeUnknownReason); nothing was stored"
        }
    }
}
