import Basics
import Foundation
import MLS

/// How MLS objects and ids travel in the JSON bodies (API.md).
enum WireFormat {
    /// `$bytes`: standard base64 without padding, as the AT Protocol data model writes it.
    static func bytes(_ message: MLSMessage) -> [String: String] {
        ["$bytes": base64(message.encoded())]
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    static func publishKeyPackageBody(_ bundle: KeyPackageBundle) -> [String: Any] {
        ["keyPackage": bytes(MLSMessage(body: .keyPackage(bundle.keyPackage))), "cipherSuite": BenchUser.suiteName]
    }

    /// A JSON text with no spaces or newlines, so it fits one field of a data line.
    static func compactJSON(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
