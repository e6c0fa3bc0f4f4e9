import Dispatch

/// Dispatch's own descriptors (an epoll instance and an event descriptor), made once, before a
/// store's files are opened: Dispatch made them the first time a worker thread or source started
/// and trapped (SIGILL) when no descriptor was free, so a process run out of descriptors died
/// mid-operation instead of getting an error (resources audit 3).
package enum DispatchReadiness {
    private static let ready: Void = {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .distantFuture)
        source.resume()
        source.cancel()
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { ran.signal() }
        ran.wait()
    }()

    /// Makes Dispatch's descriptors now, once per process.
    package static func ensure() { ready }
}
