
/// Bytes in JSON as the AT Protocol data model writes them: `{"$bytes": "<base64, no padding>"}` on
/// output; on input that form or a plain standard base64 string, padded or not (API.md, Conventions).
public struct ATBytes: Codable, Sendable, Equatable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public enum CodingKeys: String, CodingKey { case bytes = "$bytes" }

    public init(from decoder: Decoder) throws {
        let text: String
        if let container = try? decoder.container(keyedBy: CodingKeys.self) {
            text = try container.decode(String.self, forKey: .bytes)
        } else {
            text = try decoder.singleValueContainer().decode(String.self)
        }
        guard let bytes = Base64.decode(text) else {
            throw Swift.DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid base64"))
        }
        self.bytes = bytes
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64.encode(bytes, padding: false), forKey: .bytes)
    }
}
