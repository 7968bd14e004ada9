/// RFC 9420 §7.2: a KeyPackage leaf's validity window in seconds since the Unix epoch.
public struct Lifetime: MLSCodable, Hashable, Sendable {
    public var notBefore: UInt64
    public var notAfter: UInt64

    public init(notBefore: UInt64, notAfter: UInt64) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        notBefore = try reader.readUInt64()
        notAfter = try reader.readUInt64()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(notBefore)
        writer.write(notAfter)
    }
}
