/// RFC 9420 §7.6: `opaque path_secret<V>`.
public struct PathSecret: MLSCodable, Hashable, Sendable {
    public var pathSecret: [UInt8]

    public init(pathSecret: [UInt8]) { self.pathSecret = pathSecret }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        pathSecret = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(pathSecret) }
}
