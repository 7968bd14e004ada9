/// A value with an RFC 9420 TLS-presentation encoding.
public protocol MLSEncodable: Sendable {
    func encode(to writer: inout TLSWriter)
}

/// A value that can be read from its RFC 9420 TLS-presentation encoding.
public protocol MLSDecodable: Sendable {
    init(from reader: inout TLSReader) throws(DecodingError)
}

public typealias MLSCodable = MLSEncodable & MLSDecodable

extension MLSEncodable {
    /// The encoding as bytes.
    public func encoded() -> [UInt8] {
        var writer = TLSWriter()
        encode(to: &writer)
        return writer.bytes
    }
}

extension MLSDecodable {
    /// Decodes a value that must use every byte of `bytes`, within `limits`.
    public init(decoding bytes: [UInt8], limits: DecodingLimits = .unlimited) throws(DecodingError) {
        var reader = TLSReader(bytes, limits: limits)
        self = try Self(from: &reader)
        try reader.finish()
    }
}
