internal import CSQLCipher
internal import CZlib

/// The page text kept for previews, compressed before SQLCipher encrypts the page that holds it
/// (search migration 1001): FTS4's `compress=cipherdex_compress, uncompress=cipherdex_uncompress`
/// options on `search_text` (`SearchSchema.createTextTable`). FTS4 tokenises the text as given
/// and stores `cipherdex_compress(text)` in `search_text_content.c0body`; every read of `body`
/// (previews, deletes, rebuilds) goes through `cipherdex_uncompress`.
///
/// A stored value is either the text itself (TEXT: short or incompressible text, and everything
/// written before migration 1001) or a BLOB: a tag byte, the UTF-8 length as 4 bytes little
/// endian, then a zlib stream (RFC 1950) of the UTF-8 text — tag `0x02` with the preset
/// dictionary `PageTextDictionary` (what is written now), tag `0x01` without one (written
/// before the dictionary; still read). FORMAT.md, `search_text_content`.
enum PageTextCompression {
    /// The SQL function FTS4 calls on every value it stores.
    static let compressName = "cipherdex_compress"
    /// The SQL function FTS4 calls on every value it reads back.
    static let uncompressName = "cipherdex_uncompress"
    /// The first byte of a value compressed without a dictionary (read, no longer written).
    static let compressedTag: UInt8 = 0x01
    /// The first byte of a value compressed with `PageTextDictionary` (version 1).
    static let dictionaryTag: UInt8 = 0x02
    /// Text shorter than this is stored as it is (the zlib header and length would eat the gain).
    static let minimumLength = 64
    /// zlib's level: 4. On the 1,320 pages of the real-PDF corpus level 6 (zlib's default) made
    /// them 2.18x smaller, level 1 kept 5% more bytes, level 9 the same as 6 on generated pages;
    /// level 5 keeps 0.03% (generated pages) to 0.15% (real ones) more than 6 for 5–10% less
    /// time (BENCHMARKS.md, "Fewer fresh pages in the PDF helper, cheaper page text compression"),
    /// level 4 1.5–1.6% more than 5 for a fifth less (a store 0.05–0.2% larger, indexing about 4%
    /// less CPU: BENCHMARKS.md, "A binary answer from the PDF helper, page text at level 4").
    /// Any level reads back the same: it is not part of the format.
    static let level: Int32 = 4
    /// The longest text a compressed value may claim (1 GiB): a damaged length is refused before
    /// anything is allocated for it.
    static let maximumLength = 1 << 30

    /// Why a stored value cannot be read back.
    enum Failure: Error, Equatable {
        /// The value is not TEXT, NULL or a well-formed compressed BLOB.
        case malformed
    }

    /// zlib's id of `PageTextDictionary` (its Adler-32; FORMAT.md gives it), computed once.
    static let dictionaryID: UInt = PageTextDictionary.bytes.withUnsafeBufferPointer {
        cipherdex_adler32($0.baseAddress, UInt32($0.count))
    }

    /// One raw deflate stream, reset for every value: a connection's `cipherdex_compress` keeps
    /// one (SQLite never runs one connection's functions on two threads at once) rather than
    /// setting zlib up for every page, which pays for part of priming the dictionary
    /// (BENCHMARKS.md, "Page text dictionary"). `cipherdex_deflate_value` writes the zlib
    /// header and trailer itself, the bytes zlib's wrapper writes, so that zlib does not
    /// checksum the dictionary for every value.
    final class Compressor {
        /// Made on the first value (reader connections never compress), nil until then.
        private var stream: UnsafeMutablePointer<z_stream>?

        /// A compressor; its stream (at `PageTextCompression.level`) is set up when first used.
        init() {}

        deinit {
            if let stream { cipherdex_deflate_free(stream) }
        }

        /// The stored form of `text` (UTF-8), or nil when it is kept as it is (short or
        /// incompressible) or zlib failed. `dictionary: false` writes the older tag-1 form (tests
        /// of stores written before the dictionary).
        func compressed(_ text: UnsafeRawBufferPointer, dictionary: Bool = true) -> [UInt8]? {
            guard text.count >= minimumLength, text.count <= maximumLength, let base = text.baseAddress else {
                return nil
            }
            if stream == nil { stream = cipherdex_deflate_new(PageTextCompression.level) }
            // Without a stream (zlib could not allocate one) the text is kept as it is.
            guard let stream else { return nil }
            // Not worth it unless it saves at least the 5 bytes it adds.
            let capacity = text.count - 6
            var output = [UInt8](repeating: 0, count: 5 + capacity)
            let produced = output.withUnsafeMutableBufferPointer { buffer in
                let input = base.assumingMemoryBound(to: UInt8.self)
                guard dictionary else {
                    return cipherdex_deflate_value(
                        stream, PageTextCompression.level, nil, 0, 0, input, UInt32(text.count),
                        buffer.baseAddress! + 5, UInt32(capacity))
                }
                return PageTextDictionary.bytes.withUnsafeBufferPointer { words in
                    cipherdex_deflate_value(
                        stream, PageTextCompression.level, words.baseAddress, UInt32(words.count),
                        PageTextCompression.dictionaryID, input, UInt32(text.count), buffer.baseAddress! + 5,
                        UInt32(capacity))
                }
            }
            guard produced > 0 else { return nil }
            output[0] = dictionary ? dictionaryTag : compressedTag
            let length = UInt32(text.count)
            for index in 0..<4 { output[1 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
            output.removeLast(capacity - produced)
            return output
        }
    }

    /// The stored form of `text` (UTF-8) through a stream of its own: `nil` when it is kept as it
    /// is (short or incompressible).
    static func compressed(_ text: UnsafeRawBufferPointer, dictionary: Bool = true) -> [UInt8]? {
        Compressor().compressed(text, dictionary: dictionary)
    }

    /// One raw zlib inflate stream, reset for every value: a connection's `cipherdex_uncompress`
    /// keeps one (as `Compressor`), so reading 500 pages' text for previews sets zlib up once.
    final class Decompressor {
        /// Made on the first value, nil until then (and when zlib could not allocate it).
        private var stream: UnsafeMutablePointer<z_stream>?

        /// A decompressor; its stream is set up when first used.
        init() {}

        deinit {
            if let stream { cipherdex_inflate_free(stream) }
        }

        /// The UTF-8 text of a compressed value (either tag); `Failure.malformed` when it is not
        /// one (or zlib could not allocate a stream).
        func decompressed(_ value: UnsafeRawBufferPointer) throws -> [UInt8] {
            guard value.count > 5, value[0] == compressedTag || value[0] == dictionaryTag, let base = value.baseAddress
            else { throw Failure.malformed }
            let length = (0..<4).reduce(0) { $0 | Int(value[1 + $1]) << (8 * $1) }
            guard length >= minimumLength, length <= maximumLength, value.count - 5 <= Int(UInt32.max) else {
                throw Failure.malformed
            }
            if stream == nil { stream = cipherdex_inflate_new() }
            guard let stream else { throw Failure.malformed }
            var output = [UInt8](repeating: 0, count: length)
            let input = (base + 5).assumingMemoryBound(to: UInt8.self)
            let status = output.withUnsafeMutableBufferPointer { buffer in
                guard value[0] == dictionaryTag else {
                    return cipherdex_inflate_stream_value(
                        stream, nil, 0, 0, input, UInt32(value.count - 5), buffer.baseAddress!, UInt32(length))
                }
                return PageTextDictionary.bytes.withUnsafeBufferPointer { words in
                    cipherdex_inflate_stream_value(
                        stream, words.baseAddress, UInt32(words.count), PageTextCompression.dictionaryID, input,
                        UInt32(value.count - 5), buffer.baseAddress!, UInt32(length))
                }
            }
            guard status == 0 else { throw Failure.malformed }
            return output
        }
    }

    /// The UTF-8 text of a compressed value (either tag) through a stream of its own;
    /// `Failure.malformed` when it is not one.
    static func decompressed(_ value: UnsafeRawBufferPointer) throws -> [UInt8] {
        try Decompressor().decompressed(value)
    }

    /// `cipherdex_uncompress`'s error for a BLOB that is not a compressed value (and
    /// `PageTextMatches`', which reads the stored values itself).
    static let notCompressedMessage = "the stored page text is damaged (not a compressed value)"
    /// The error for a stored value that is neither TEXT nor a BLOB.
    static let notTextMessage = "the stored page text is damaged (not TEXT or a BLOB)"

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
                guard let data = sqlite3_user_data(context) else {
                    return sqlite3_result_error(context, "cipherdex_compress has no compressor", -1)
                }
                let compressor = Unmanaged<Compressor>.fromOpaque(data).takeUnretainedValue()
                let stored = text.flatMap { compressor.compressed(UnsafeRawBufferPointer(start: $0, count: count)) }
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
                guard let data = sqlite3_user_data(context) else {
                    return sqlite3_result_error(context, "cipherdex_uncompress has no decompressor", -1)
                }
                let decompressor = Unmanaged<Decompressor>.fromOpaque(data).takeUnretainedValue()
                guard let blob,
                    let text = try? decompressor.decompressed(UnsafeRawBufferPointer(start: blob, count: count))
                else {
                    return sqlite3_result_error(context, notCompressedMessage, -1)
                }
                text.withUnsafeBytes {
                    sqlite3_result_text(
                        context, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32($0.count),
                        cipherdex_sqlite_transient())
                }
            default: sqlite3_result_error(context, notTextMessage, -1)
            }
        }

    /// Registers both functions on `connection` (per connection, like every SQL function), before
    /// anything reads or writes `search_text`.
    static func register(on connection: Connection) throws {
        let compressor = Compressor()
        // The connection owns the compressor from here: SQLite calls `releaseCompressor` when the
        // function is replaced or the connection closes, and also when registering fails.
        let data = Unmanaged.passRetained(compressor).toOpaque()
        let code = sqlite3_create_function_v2(
            connection.handle, compressName, 1, SQLITE_UTF8 | cipherdex_sqlite_deterministic(), data,
            compressFunction, nil, nil, releaseCompressor)
        guard code == SQLITE_OK else { throw connection.error(code: code) }
        // The same for the decompressor (`releaseDecompressor`).
        let decompressor = Unmanaged.passRetained(Decompressor()).toOpaque()
        let second = sqlite3_create_function_v2(
            connection.handle, uncompressName, 1, SQLITE_UTF8 | cipherdex_sqlite_deterministic(), decompressor,
            uncompressFunction, nil, nil, releaseDecompressor)
        guard second == SQLITE_OK else { throw connection.error(code: second) }
    }

    /// Releases a connection's compressor (`sqlite3_create_function_v2`'s destructor).
    private static let releaseCompressor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<Compressor>.fromOpaque(data).release()
    }

    /// Releases a connection's decompressor (`sqlite3_create_function_v2`'s destructor).
    private static let releaseDecompressor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<Decompressor>.fromOpaque(data).release()
    }
}
