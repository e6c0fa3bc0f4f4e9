// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Cipherdex",
    products: [
        .library(name: "Cipherdex", targets: ["Cipherdex"]),
        .library(name: "CipherdexStore", targets: ["CipherdexStore"]),
        .library(name: "CipherdexExtraction", targets: ["CipherdexExtraction"]),
        .library(name: "CipherdexPDFWriter", targets: ["CipherdexPDFWriter"]),
        .executable(name: "cipherdex", targets: ["CipherdexCLI"]),
        .executable(name: "cipherdex-bench", targets: ["CipherdexBench"]),
        .executable(name: "cipherdex-extract", targets: ["CipherdexExtractHelper"]),
        .executable(name: "cipherdex-crash", targets: ["CipherdexCrashHarness"]),
        .executable(name: "cipherdex-store-probe", targets: ["CipherdexStoreProbe"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"])]
        ),
        // poppler-glib, GLib, cairo and poppler-cpp loaded with dlopen on first use, never linked:
        // a process that extracts no PDF (`cipherdex search`) maps none of them (ARCHITECTURE.md,
        // "Extraction isolation"). Its own declarations; no pkg-config, no link flags.
        .target(name: "CPopplerRuntime"),
        // poppler's reading-order page text behind a C interface, compiled against poppler-cpp's
        // and poppler core's headers (<poppler/cpp/...>, <poppler/TextOutputDev.h>; `shim/` as in
        // CPopplerImages) and calling both through CPopplerRuntime's table.
        .target(
            name: "CPopplerText",
            dependencies: ["CPopplerRuntime"],
            cxxSettings: [.headerSearchPath("shim")]
        ),
        // The check OCR makes of a page's images before rendering it (their size from their
        // dictionaries, and whether they decode), in C++ against poppler core's headers
        // (libpoppler-private-dev; `shim/` puts two of them on the include path) behind a C
        // interface, calling libpoppler's out-of-line members through dlsym (nothing links it).
        .target(
            name: "CPopplerImages",
            dependencies: ["CPopplerRuntime"],
            cxxSettings: [.headerSearchPath("shim")]
        ),
        // Compiles CPopplerRuntime's declarations against the real headers (static assertions):
        // for the tests only, since it links poppler-glib through CPoppler.
        .target(
            name: "CPopplerRuntimeABICheck",
            dependencies: ["CPoppler", "CPopplerRuntime"],
            path: "Tests/CPopplerRuntimeABICheck"
        ),
        // Tesseract's C API for OCR of scanned pages: its header only (no pkg-config, so nothing
        // links libtesseract); the extraction helper dlopens it for its first page to recognise
        // (ARCHITECTURE.md, "OCR of scanned pages").
        .systemLibrary(
            name: "CTesseract",
            providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]
        ),
        // OpenSSL's libcrypto for AES-256-GCM of attachment chunks (about twice libsodium's speed
        // here): SQLCipher already links it, so no new library is loaded (ARCHITECTURE.md).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(name: "CSystemShims"),
        // zlib compresses the page text search keeps for previews (ARCHITECTURE.md, "Full-text
        // search"): a small library, also a dependency of poppler, cairo and libpng in the helper.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The store, documents and attachments: SQLCipher, libsodium and libcrypto (SQLCipher's own) only, no poppler.
        // SQLite's default VFS with the wal-index's shared memory backed by disk blocks before it
        // is written (a write to a hole of the mapped `-shm` file on a full disk raises SIGBUS).
        .target(name: "CSQLiteVFS", dependencies: ["CSQLCipher"]),
        .target(
            name: "CipherdexStore",
            dependencies: ["CSQLCipher", "CSQLiteVFS", "CSodium", "CCrypto", "CSystemShims"]
        ),
        // Full-text search above the store; re-exports CipherdexStore and CipherdexExtraction.
        .target(
            name: "Cipherdex",
            dependencies: ["CipherdexStore", "CSQLCipher", "CZlib", "CipherdexExtraction"]
        ),
        // The constructor that makes any executable linking CipherdexExtraction its own PDF
        // extraction helper (ARCHITECTURE.md, "Extraction isolation").
        .target(name: "CExtractHelperEntry"),
        .target(
            name: "CipherdexExtraction",
            dependencies: ["CPopplerRuntime", "CPopplerText", "CPopplerImages", "CExtractHelperEntry", "CTesseract"]
        ),
        .target(
            name: "CipherdexPDFWriter",
            dependencies: ["CPoppler"]
        ),
        .executableTarget(
            name: "CipherdexExtractHelper",
            dependencies: ["CipherdexExtraction"]
        ),
        // Built from CipherdexStore alone: the tests check that it links no poppler, GLib or
        // cairo, and run it on stores that hold a search index.
        .executableTarget(
            name: "CipherdexStoreProbe",
            dependencies: ["CipherdexStore"]
        ),
        .executableTarget(
            name: "CipherdexCLI",
            dependencies: ["Cipherdex"]
        ),
        .target(
            name: "CipherdexEvaluation",
            dependencies: ["Cipherdex", "CipherdexPDFWriter"]
        ),
        .executableTarget(
            name: "CipherdexBench",
            dependencies: ["Cipherdex", "CipherdexPDFWriter", "CipherdexEvaluation"]
        ),
        .executableTarget(
            name: "CipherdexCrashHarness",
            dependencies: ["Cipherdex", "CipherdexPDFWriter"]
        ),
        // Test support shared by the test targets (temporary directories removed after each test).
        .target(name: "CipherdexTestSupport", path: "Tests/CipherdexTestSupport"),
        .testTarget(
            name: "CipherdexCrashHarnessTests",
            dependencies: ["CipherdexCrashHarness", "CipherdexExtractHelper"]
        ),
        .testTarget(
            name: "CipherdexTests",
            // The CLI runs as the other process in the stress tests; the store-only probe in
            // StoreFeatureTests.
            dependencies: [
                "Cipherdex", "CipherdexPDFWriter", "CipherdexExtractHelper", "CipherdexCLI", "CipherdexStoreProbe",
                "CipherdexTestSupport",
            ]
        ),
        .testTarget(
            name: "CipherdexCLITests",
            dependencies: ["CipherdexCLI", "CipherdexPDFWriter", "CipherdexTestSupport"]
        ),
        .testTarget(
            name: "CipherdexEvaluationTests",
            dependencies: ["CipherdexEvaluation", "CipherdexPDFWriter", "CipherdexExtractHelper"]
        ),
        .testTarget(
            name: "CipherdexExtractionTests",
            dependencies: [
                "CipherdexExtraction", "CipherdexPDFWriter", "CipherdexExtractHelper", "CipherdexTestSupport",
                "CPopplerRuntimeABICheck",
            ]
        ),
    ]
)

// libFuzzer targets (FuzzTesting/README.md): only in the manifest when CIPHERDEX_FUZZ=1, because
// they link only with compiler-rt's libFuzzer and coverage instrumentation, which `make fuzz`
// passes (scratch path .build-fuzz). Their sources use the libraries' internals via `@testable`.
if Context.environment["CIPHERDEX_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependency: Target.Dependency)] = [
        ("FuzzJSON", "CipherdexStore"), ("FuzzMetadata", "CipherdexStore"), ("FuzzRecoveryKey", "CipherdexStore"),
        ("FuzzAttachmentHeader", "CipherdexStore"), ("FuzzQuery", "Cipherdex"), ("FuzzTokenizer", "Cipherdex"),
        ("FuzzHelperAnswer", "CipherdexExtraction"), ("FuzzAttachmentChunks", "CipherdexStore"),
        ("FuzzKeyFiles", "CipherdexStore"), ("FuzzCLIArguments", "Cipherdex"),
        ("FuzzWriteAheadLog", "CipherdexStore"),
    ]
    package.targets += [
        .target(name: "CFuzzDriver", path: "FuzzTesting/Sources/CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], path: "FuzzTesting/Sources/FuzzSupport"),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: target.name, dependencies: [target.dependency, "FuzzSupport"],
                path: "FuzzTesting/Sources/\(target.name)"))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
