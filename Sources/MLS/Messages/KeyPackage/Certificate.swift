/// RFC 9420 §5.3: `opaque cert_data<V>`, one DER certificate.
public struct Certificate: MLSCodable, Hashable, Sendable {
    public var certData: [UInt8]

    public init(certData: [UInt8]) { self.certData = certData }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        certData = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(certData) }
}
