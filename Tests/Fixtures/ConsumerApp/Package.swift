// swift-tools-version:6.0
// A package that uses Cipherdex the way README.md tells a user to: a path dependency and the
// `Cipherdex` library product. Built and run by ConsumerFixtureTests (make test), which also
// compiles every ```swift block of README.md into ReadmeExamples.
import PackageDescription

let package = Package(
    name: "ConsumerApp",
    dependencies: [
        .package(name: "Cipherdex", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "ConsumerApp",
            dependencies: [
                .product(name: "Cipherdex", package: "Cipherdex"),
                // Only to write a PDF at run time.
                .product(name: "CipherdexPDFWriter", package: "Cipherdex"),
            ]
        ),
        // README.md's code blocks, each inside an async function (Generated.swift, written by
        // ConsumerFixtureTests, is not committed), with the declarations they assume (Context.swift).
        .target(
            name: "ReadmeExamples",
            dependencies: [.product(name: "Cipherdex", package: "Cipherdex")]
        ),
    ]
)
