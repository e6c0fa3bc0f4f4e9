// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Cipherdex",
    products: [
        .library(name: "Cipherdex", targets: ["Cipherdex"]),
        .executable(name: "cipherdex", targets: ["CipherdexCLI"]),
        .executable(name: "cipherdex-bench", targets: ["CipherdexBench"]),
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
        .target(
            name: "Cipherdex",
            dependencies: ["CSQLCipher", "CSodium"]
        ),
        .executableTarget(
            name: "CipherdexCLI",
            dependencies: ["Cipherdex"]
        ),
        .executableTarget(
            name: "CipherdexBench",
            dependencies: ["Cipherdex"]
        ),
        .testTarget(
            name: "CipherdexTests",
            dependencies: ["Cipherdex"]
        ),
        .testTarget(
            name: "CipherdexCLITests",
            dependencies: ["CipherdexCLI"]
        ),
    ]
)
