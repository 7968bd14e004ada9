import Foundation

/// Bytes in JSON as the AT Protocol data model writes them: `{"$bytes": "<base64, no padding>"}`.
/// Decoding also takes a plain standard base64 string, padded or not, as the service does (API.md,
/// Conventions).
public struct XRPCBytes: Codable, Sendable, Equatable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    private enum CodingKeys: String, CodingKey { case bytes = "$bytes" }

    public init(from decoder: Decoder) throws {
        let text: String
        if let container = try? decoder.container(keyedBy: CodingKeys.self) {
            text = try container.decode(String.self, forKey: .bytes)
        } else {
            text = try decoder.singleValueContainer().decode(String.self)
        }
        guard let bytes = Self.decodeBase64(text) else {
            throw Swift.DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid base64"))
        }
        self.bytes = bytes
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.encodeBase64(bytes), forKey: .bytes)
    }

    /// RFC 4648 §4 without padding, as the atproto data model writes bytes.
    public static func encodeBase64(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Standard base64, padding optional; nil for characters outside the alphabet or a length no
    /// encoder produces.
    public static func decodeBase64(_ text: String) -> [UInt8]? {
        var padded = text
        if padded.utf8.count % 4 == 1 { return nil }
        if padded.utf8.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.utf8.count % 4) }
        guard let data = Data(base64Encoded: padded) else { return nil }
        return Array(data)
    }
}
