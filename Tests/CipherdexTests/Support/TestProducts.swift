import Foundation

/// The folder holding the built products (beside the test bundle).
enum TestProducts {
    private final class Marker {}

    /// The built product `name`.
    static func url(_ name: String) -> URL {
        var url = Bundle(for: Marker.self).bundleURL
        while url.pathExtension == "xctest" || url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
        return url.appendingPathComponent(name)
    }
}
