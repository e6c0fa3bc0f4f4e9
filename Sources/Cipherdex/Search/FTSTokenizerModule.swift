internal import CSQLCipher

#if canImport(Glibc)
    import Glibc
#endif

/// `SearchTokenizer` as an FTS3/FTS4 tokenizer module (version 0 of the `sqlite3_tokenizer_module`
/// interface declared in the CSQLCipher shim), registered per connection by `register(on:)`.
///
/// Each cursor wraps a `TokenScanner` over SQLite's input buffer; the current token's text lives
/// in the scanner's own buffer, owned by the cursor, until the next `xNext` or `xClose`, as FTS
/// requires.
enum FTSTokenizerModule {
    /// The module without stemming (`tokenize=cipherdex`); never freed.
    nonisolated(unsafe) static let plain = makeModule { argc, argv, tokenizer in
        create(stemming: false, argc: argc, argv: argv, tokenizer: tokenizer)
    }

    /// The module with Porter stemming (`tokenize=cipherdex_stem`); never freed.
    nonisolated(unsafe) static let stemming = makeModule { argc, argv, tokenizer in
        create(stemming: true, argc: argc, argv: argv, tokenizer: tokenizer)
    }

    /// The `xCreate` signature.
    typealias CreateFunction = @convention(c) (
        Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_tokenizer>?>?
    ) -> Int32

    /// The state behind one cursor: the scanner (which holds the current token's bytes).
    private final class CursorState {
        /// The scanner over SQLite's input.
        var scanner: TokenScanner

        /// State for a cursor over `input`.
        init(_ input: UnsafeBufferPointer<UInt8>, stemming: Bool) {
            scanner = TokenScanner(input, stemming: stemming)
        }

        /// `xNext`'s work: the next token into the out-parameters, or SQLITE_DONE.
        func next(
            _ token: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int32>?,
            _ start: UnsafeMutablePointer<Int32>?, _ end: UnsafeMutablePointer<Int32>?, _ position: UnsafeMutablePointer<Int32>?
        ) -> Int32 {
            guard let raw = scanner.next() else { return SQLITE_DONE }
            let text = scanner.text
            token?.pointee = text.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            length?.pointee = Int32(text.count)
            start?.pointee = Int32(raw.range.lowerBound)
            end?.pointee = Int32(raw.range.upperBound)
            position?.pointee = Int32(raw.position)
            return SQLITE_OK
        }
    }

    /// A module whose `xCreate` is `create`.
    private static func makeModule(_ create: CreateFunction) -> UnsafeMutablePointer<sqlite3_tokenizer_module> {
        let module = UnsafeMutablePointer<sqlite3_tokenizer_module>.allocate(capacity: 1)
        module.initialize(to: sqlite3_tokenizer_module(iVersion: 0, xCreate: create, xDestroy: destroy, xOpen: open, xClose: close, xNext: next))
        return module
    }

    /// `xCreate`: a tokenizer instance. An argument `stem` or `porter` turns stemming on.
    private static func create(stemming: Bool, argc: Int32, argv: UnsafePointer<UnsafePointer<CChar>?>?,
                               tokenizer: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_tokenizer>?>?) -> Int32 {
        var stem = stemming
        for index in 0..<Int(max(argc, 0)) {
            guard let argument = argv?[index] else { continue }
            let option = String(cString: argument).lowercased()
            if option == "stem" || option == "porter" { stem = true }
        }
        let instance = UnsafeMutablePointer<cipherdex_tokenizer>.allocate(capacity: 1)
        instance.initialize(to: cipherdex_tokenizer(base: sqlite3_tokenizer(pModule: nil), stemming: stem ? 1 : 0))
        tokenizer?.pointee = UnsafeMutableRawPointer(instance).assumingMemoryBound(to: sqlite3_tokenizer.self)
        return SQLITE_OK
    }

    /// `xDestroy`.
    private static let destroy: @convention(c) (UnsafeMutablePointer<sqlite3_tokenizer>?) -> Int32 = { tokenizer in
        guard let tokenizer else { return SQLITE_OK }
        let instance = UnsafeMutableRawPointer(tokenizer).assumingMemoryBound(to: cipherdex_tokenizer.self)
        instance.deinitialize(count: 1)
        instance.deallocate()
        return SQLITE_OK
    }

    /// `xOpen`: a cursor over `nBytes` of `input` (NUL-terminated when `nBytes` is negative).
    private static let open: @convention(c) (
        UnsafeMutablePointer<sqlite3_tokenizer>?, UnsafePointer<CChar>?, Int32,
        UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_tokenizer_cursor>?>?
    ) -> Int32 = { tokenizer, input, nBytes, cursorOut in
        guard let tokenizer, let cursorOut else { return SQLITE_MISUSE }
        let instance = UnsafeMutableRawPointer(tokenizer).assumingMemoryBound(to: cipherdex_tokenizer.self)
        var buffer = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        if let input {
            let count = nBytes < 0 ? strlen(input) : Int(nBytes)
            buffer = UnsafeBufferPointer(start: UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self), count: count)
        }
        let state = CursorState(buffer, stemming: instance.pointee.stemming != 0)
        let cursor = UnsafeMutablePointer<cipherdex_tokenizer_cursor>.allocate(capacity: 1)
        cursor.initialize(to: cipherdex_tokenizer_cursor(base: sqlite3_tokenizer_cursor(pTokenizer: tokenizer),
                                                         state: Unmanaged.passRetained(state).toOpaque()))
        cursorOut.pointee = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: sqlite3_tokenizer_cursor.self)
        return SQLITE_OK
    }

    /// `xClose`.
    private static let close: @convention(c) (UnsafeMutablePointer<sqlite3_tokenizer_cursor>?) -> Int32 = { cursor in
        guard let cursor else { return SQLITE_OK }
        let own = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: cipherdex_tokenizer_cursor.self)
        if let state = own.pointee.state { Unmanaged<CursorState>.fromOpaque(state).release() }
        own.deinitialize(count: 1)
        own.deallocate()
        return SQLITE_OK
    }

    /// `xNext`: the next token's text, byte offsets and position, or SQLITE_DONE.
    private static let next: @convention(c) (
        UnsafeMutablePointer<sqlite3_tokenizer_cursor>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?,
        UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
    ) -> Int32 = { cursor, token, length, start, end, position in
        guard let cursor else { return SQLITE_MISUSE }
        let own = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: cipherdex_tokenizer_cursor.self)
        guard let opaque = own.pointee.state else { return SQLITE_MISUSE }
        // The cursor holds the state for as long as SQLite uses it: no retain needed here.
        return Unmanaged<CursorState>.fromOpaque(opaque)._withUnsafeGuaranteedRef { state in
            state.next(token, length, start, end, position)
        }
    }
}

extension SearchTokenizer {
    /// Registers `cipherdex` and `cipherdex_stem` on `connection` (registration is per connection:
    /// do it on every connection that touches an FTS table using them, before its first use).
    ///
    /// `fts3_tokenizer()` with two arguments is enabled only for the registration and disabled
    /// again, so SQL run later on the connection cannot register arbitrary pointers.
    static func register(on connection: Connection) throws {
        let db = connection.handle
        let enabled = cipherdex_enable_fts3_tokenizer(db, 1)
        guard enabled == SQLITE_OK else { throw connection.error(code: enabled) }
        defer { _ = cipherdex_enable_fts3_tokenizer(db, 0) }
        for (tokenizerName, module) in [(name, FTSTokenizerModule.plain), (stemmingName, FTSTokenizerModule.stemming)] {
            var address = UInt(bitPattern: module)
            let blob = withUnsafeBytes(of: &address) { Array($0) }
            _ = try connection.scalar("SELECT fts3_tokenizer(?, ?)", [.text(tokenizerName), .blob(blob)])
        }
    }
}
