internal import CPopplerText
import Dispatch
import Synchronization

/// The text of every page of a PDF in reading order, as `pdftotext` prints it, from poppler-cpp's
/// `page::text()` (through the C interface of `CPopplerText`).
///
/// poppler-glib's page text (`poppler_page_get_text`, `_for_area`, `_selected_text`) drops whole
/// lines of right-to-left text that this text has (pdfjs__issue11656.pdf: one of four Hebrew
/// lines), so `PDFTextExtractor` takes page text from here and everything else from glib.
enum ReadingOrderText {
    /// Why no texts came back.
    enum Failure: Error, Equatable {
        /// Encrypted, and the password is missing or wrong.
        case locked
        /// Poppler could not open the document.
        case damaged
        /// Out of memory, an exception inside poppler-cpp, or a document over 2 GiB.
        case failed
        /// Not done within the time limit (poppler-cpp's page display builds the document's whole
        /// form-field tree, which hostile files make exponential: qpdf__shared-unnamed-field.pdf).
        /// The work goes on in its thread until poppler returns, if ever.
        case timedOut
    }

    /// The outcome of a call running in its own thread, once it is there.
    private final class Slot: Sendable {
        /// The outcome.
        let value = Mutex<Result<[String], Failure>?>(nil)
        /// Signalled when `value` is set.
        let done = DispatchSemaphore(value: 0)
    }

    /// `pageTexts(of:password:)` in a thread of its own, waited for at most `timeLimit` seconds
    /// (nil: as long as it takes, in this thread): `.timedOut` after that, the thread abandoned
    /// (detached). poppler calls cannot be interrupted, so the abandoned thread runs on; a process
    /// that must not keep it (the extraction helper) exits once it has answered. A thread that
    /// answered in time is joined, so the next document's thread reuses its malloc arena (without
    /// the join, a busy machine could start the next before this one had gone: about 690 fresh
    /// pages for a new arena in the helper). `.failed` when no thread can be started.
    static func pageTexts(of data: [UInt8], password: String?, timeLimit: Double?) -> Result<[String], Failure> {
        guard let timeLimit else { return pageTexts(of: data, password: password) }
        let slot = Slot()
        // poppler recurses over deep content and form trees: the main thread's stack size.
        let started = JoinableThread(stackSize: 8 << 20) {
            let outcome = pageTexts(of: data, password: password)
            slot.value.withLock { $0 = outcome }
            slot.done.signal()
        }
        guard let thread = started else { return .failure(.failed) }
        guard slot.done.wait(timeout: .now() + max(timeLimit, 0)) == .success else {
            thread.detach()
            return .failure(.timedOut)
        }
        thread.join()
        return slot.value.withLock { $0 } ?? .failure(.failed)
    }

    /// The UTF-8 text of each page of the PDF in `data`, opened with `password` (tried as owner and
    /// user password; nil is none).
    static func pageTexts(of data: [UInt8], password: String?) -> Result<[String], Failure> {
        var texts: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        let status = data.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return Int32(CDX_POPPLER_TEXT_FAILED.rawValue) }
            if let password {
                return password.withCString { cdx_poppler_page_texts(base, buffer.count, $0, &texts, &count) }
            }
            return cdx_poppler_page_texts(base, buffer.count, nil, &texts, &count)
        }
        defer { cdx_poppler_free_page_texts(texts, count) }
        switch UInt32(bitPattern: status) {
        case CDX_POPPLER_TEXT_OK.rawValue:
            guard let texts, count >= 0 else { return count == 0 ? .success([]) : .failure(.failed) }
            return .success((0..<Int(count)).map { texts[$0].map { String(cString: $0) } ?? "" })
        case CDX_POPPLER_TEXT_LOCKED.rawValue: return .failure(.locked)
        case CDX_POPPLER_TEXT_DAMAGED.rawValue: return .failure(.damaged)
        default: return .failure(.failed)
        }
    }
}
