internal import CSQLCipher
internal import CZlib

/// The page text kept for previews, compressed before SQLCipher encrypts the page that holds it
/// (search migration 1001): FTS4's `compress=cipherdex_compress, uncompress=cipherdex_uncompress`
/// options on `search_text` (`SearchSchema.createTextTable`). FTS4 tokenises the text as given
/// and stores `cipherdex_compress(text)` in `search_text_content.c0body`; every read of `body`
/// (previews, deletes, rebuilds) goes through `cipherdex_uncompress`.
///
/// A stored value is either the text itself (TEXT: short or incompressible text, and everything
/// written before migration 1001) or a BLOB: the byte `0x01`, the UTF-8 length as 4 bytes little
/// endian, then a zlib stream (RFC 1950) of the UTF-8 text (FORMAT.md).
enum PageTextCompression {
    /// The SQL function FTS4 calls on every value it stores.
    static let compressName = "cipherdex_compress"
    /// The SQL function FTS4 calls on every value it reads back.
    static let uncompressName = "cipherdex_uncompress"
    /// The first byte of a compressed value.
    static let compressedTag: UInt8 = 0x01
    /// Text shorter than this is stored as it is (the zlib header and length would eat the gain).
    static let minimumLength = 64
    /// zlib's level: 6, its default (on the 1,320 pages of the real-PDF corpus, 2.18x smaller;
    /// level 1 kept 5% more bytes).
    static let level: Int32 = 6
    /// The longest text a compressed value may claim (1 GiB): a damaged length is refused before
    /// anything is allocated for it.
    static let maximumLength = 1 << 30

    /// Why a stored value cannot be read back.
    enum Failure: Error, Equatable {
        /// The value is not TEXT, NULL or a well-formed compressed BLOB.
        case malformed
    }

    /// The stored form of `text` (UTF-8): `nil` when it is kept as it is (short or incompressible).
    static func compressed(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count >= minimumLength, text.count <= maximumLength, let base = text.baseAddress else { return nil }
        let bound = Int(compressBound(uLong(text.count)))
        var output = [UInt8](repeating: 0, count: 5 + bound)
        var produced = uLongf(bound)
        let status = output.withUnsafeMutableBufferPointer { buffer in
            CZlib.compress2(
                buffer.baseAddress! + 5, &produced, base.assumingMemoryBound(to: Bytef.self), uLong(text.count), level)
        }
        // Not worth it unless it saves at least the header it adds.
        guard status == Z_OK, Int(produced) + 5 < text.count else { return nil }
        output[0] = compressedTag
        let length = UInt32(text.count)
        for index in 0..<4 { output[1 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        output.removeLast(bound - Int(produced))
        return output
    }

    /// The UTF-8 text of a compressed value; `Failure.malformed` when it is not one.
    static func decompressed(_ value: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard value.count > 5, value[0] == compressedTag, let base = value.baseAddress else { throw Failure.malformed }
        let length = (0..<4).reduce(0) { $0 | Int(value[1 + $1]) << (8 * $1) }
        guard length >= minimumLength, length <= maximumLength else { throw Failure.malformed }
        var output = [UInt8](repeating: 0, count: length)
        var produced = uLongf(length)
        let status = output.withUnsafeMutableBufferPointer { buffer in
            CZlib.uncompress(
                buffer.baseAddress!, &produced, (base + 5).assumingMemoryBound(to: Bytef.self), uLong(value.count - 5))
        }
        guard status == Z_OK, Int(produced) == length else { throw Failure.malformed }
        return output
    }

    // MARK: SQL functions

    private static let compressFunction:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, argc, argv in
            guard let argv, argc == 1 else {
                return sqlite3_result_error(context, "cipherdex_compress needs one argument", -1)
            }
            let value = argv[0]
            switch sqlite3_value_type(value) {
            case SQLITE_NULL: sqlite3_result_null(context)
            case SQLITE_TEXT:
                let text = sqlite3_value_text(value)  // before sqlite3_value_bytes, as SQLite asks
                let count = Int(sqlite3_value_bytes(value))
                let stored = text.flatMap { compressed(UnsafeRawBufferPointer(start: $0, count: count)) }
                guard let stored else { return sqlite3_result_value(context, value) }
                stored.withUnsafeBytes {
                    sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), cipherdex_sqlite_transient())
                }
            default: sqlite3_result_error(context, "cipherdex_compress: page text must be TEXT", -1)
            }
        }

    private static let uncompressFunction:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, argc, argv in
            guard let argv, argc == 1 else {
                return sqlite3_result_error(context, "cipherdex_uncompress needs one argument", -1)
            }
            let value = argv[0]
            switch sqlite3_value_type(value) {
            case SQLITE_NULL, SQLITE_TEXT: sqlite3_result_value(context, value)
            case SQLITE_BLOB:
                let blob = sqlite3_value_blob(value)
                let count = Int(sqlite3_value_bytes(value))
                guard let blob,
                    let text = try? decompressed(UnsafeRawBufferPointer(start: blob, count: count))
                else {
                    return sqlite3_result_error(context, "the stored page text is damaged (not a compressed value)", -1)
                }
                text.withUnsafeBytes {
                    sqlite3_result_text(
                        context, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32($0.count),
                        cipherdex_sqlite_transient())
                }
            default: sqlite3_result_error(context, "the stored page text is damaged (not TEXT or a BLOB)", -1)
            }
        }

    /// Registers both functions on `connection` (per connection, like every SQL function), before
    /// anything reads or writes `search_text`.
    static func register(on connection: Connection) throws {
        for (name, function) in [(compressName, compressFunction), (uncompressName, uncompressFunction)] {
            let code = sqlite3_create_function_v2(
                connection.handle, name, 1, SQLITE_UTF8 | cipherdex_sqlite_deterministic(), nil, function, nil, nil, nil
            )
            guard code == SQLITE_OK else { throw connection.error(code: code) }
        }
    }
}
