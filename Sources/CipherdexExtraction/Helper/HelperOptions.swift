/// The helper's command-line options.
struct HelperOptions {
    /// The address-space limit (RLIMIT_AS), in bytes.
    var memoryBytes = 1 << 30
    /// The CPU time each request may use (RLIMIT_CPU, moved before each request), in seconds.
    var cpuSeconds = 30
    /// How many requests to serve before exiting.
    var requests = 1
    /// Seconds a document's reading-order text may take before it gets glib's page text
    /// (`PDFTextExtractor.readingOrderTimeLimit`); nil means half of `cpuSeconds`.
    var readingOrderSeconds: Double?
    /// Whether `--help` was given.
    var showHelp = false

    /// The usage text.
    static let usage = """
        usage: cipherdex-extract [--memory-limit BYTES] [--cpu-limit SECONDS] [--requests N]
                                 [--reading-order-limit SECONDS]
          Reads framed PDF extraction requests on stdin and writes one framed answer per request
          on stdout, until N requests were served or stdin ends. A document whose reading-order
          text takes longer than --reading-order-limit gets glib's page text, and the helper exits
          after answering it.
          Defaults: --memory-limit 1073741824 (1 GiB), --cpu-limit 30 (per request), --requests 1,
          --reading-order-limit half of --cpu-limit.
        """

    /// A bad command line.
    struct UsageError: Error, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }

    /// Parses `arguments` (without argv[0]).
    init(arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--memory-limit":
                // The helper maps about 91 MiB of address space (Swift runtime, Foundation,
                // poppler, glib) before it reads anything.
                guard let value = iterator.next().flatMap(Int.init), value >= 128 << 20 else {
                    throw UsageError(description: "--memory-limit needs a byte count of at least 128 MiB")
                }
                memoryBytes = value
            case "--cpu-limit":
                guard let value = iterator.next().flatMap(Int.init), value >= 1 else {
                    throw UsageError(description: "--cpu-limit needs a positive number of seconds")
                }
                cpuSeconds = value
            case "--requests":
                guard let value = iterator.next().flatMap(Int.init), value >= 1 else {
                    throw UsageError(description: "--requests needs a positive count")
                }
                requests = value
            case "--reading-order-limit":
                guard let value = iterator.next().flatMap(Double.init), value > 0, value.isFinite else {
                    throw UsageError(description: "--reading-order-limit needs a positive number of seconds")
                }
                readingOrderSeconds = value
            case "--help", "-h":
                showHelp = true
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
    }
}
