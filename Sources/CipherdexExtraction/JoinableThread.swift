#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread that runs one closure and is then either joined or detached, by the thread that
/// started it (not `Sendable`: one owner).
///
/// Foundation's `Thread` cannot be joined: its thread may still be on its way out (its tcache and
/// malloc arena not yet handed back) when the next one starts, and glibc then makes the next one a
/// new arena. `ReadingOrderText` joins each document's thread once it has signalled, so the next
/// document's thread reuses the same arena and heap pages.
package final class JoinableThread {
    /// The closure, kept alive for the thread (retained across `pthread_create`).
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let thread: pthread_t
    /// Whether `join` or `detach` has been called.
    private var settled = false

    /// Starts `body` in a new thread with a stack of `stackSize` bytes; nil when the system makes
    /// no thread (`pthread_create` fails, for instance with `EAGAIN` past a thread limit).
    package init?(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        guard pthread_attr_setstacksize(&attributes, stackSize) == 0 else { return nil }
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { context in
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits until the thread has ended, its thread-local memory given back. Call it only when
    /// its closure has returned or is about to (it waits as long as the closure runs).
    package func join() {
        guard !settled else { return }
        settled = true
        let status = pthread_join(thread, nil)
        precondition(status == 0, "pthread_join of a thread this object started: \(status)")
    }

    /// Lets the thread run on by itself; its resources are freed when it ends.
    package func detach() {
        guard !settled else { return }
        settled = true
        let status = pthread_detach(thread)
        precondition(status == 0, "pthread_detach of a thread this object started: \(status)")
    }

    deinit { detach() }
}
