internal import CPopplerRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// poppler-glib, poppler-cpp, GLib, GIO and cairo, loaded with `dlopen` on first use
/// (`CPopplerRuntime`) rather than linked: a process that extracts no PDF, such as
/// `cipherdex search`, never maps them or pays for their relocations. The extraction helper loads
/// them when it starts; an in-process `PDFTextExtractor` at its first document.
enum PopplerLibraries {
    /// The libraries' functions, loading them on first use (once per process). Throws
    /// `.libraryUnavailable` naming the missing library or function; the outcome of the first
    /// attempt is kept.
    static func api() throws(ExtractionError) -> cdx_poppler_api {
        var error: UnsafePointer<CChar>?
        guard let table = cdx_poppler_load(&error) else {
            throw .libraryUnavailable(reason: error.map { String(cString: $0) } ?? "unknown error")
        }
        return table.pointee
    }

    /// Loads the libraries now if they are not loaded (the helper's start), ignoring a failure,
    /// which each request then reports.
    static func preload() {
        _ = try? api()
    }

    /// Whether this process has loaded them.
    static var isLoaded: Bool { cdx_poppler_is_loaded() != 0 }

    /// The sonames loaded by default, in loading order (GLib, GObject, GIO, cairo, poppler-glib,
    /// poppler-cpp).
    static var defaultSonames: [String] {
        withUnsafeBytes(of: cdx_poppler_default_sonames) { raw in
            raw.bindMemory(to: UnsafePointer<CChar>?.self).map { $0.map { String(cString: $0) } ?? "" }
        }
    }

    /// Loads `sonames` (in `defaultSonames`' order) and resolves every function without touching
    /// the process's table: the error a missing library or function gives (tests).
    static func check(sonames: [String]) -> Result<Void, ExtractionError> {
        let count = Int(CDX_POPPLER_LIBRARY_COUNT.rawValue)
        guard sonames.count == count else {
            return .failure(.libraryUnavailable(reason: "\(sonames.count) libraries given, \(count) needed"))
        }
        let copies = sonames.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var api = cdx_poppler_api()
        var message = [CChar](repeating: 0, count: 512)
        let names: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        let status = names.withUnsafeBufferPointer {
            cdx_poppler_load_from($0.baseAddress, &api, &message, message.count)
        }
        guard status == 0 else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(.libraryUnavailable(reason: reason))
        }
        return .success(())
    }
}
