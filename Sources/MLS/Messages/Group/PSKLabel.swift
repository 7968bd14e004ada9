/// RFC 9420 §8.4: the context for deriving each PSK's input to the PSK secret.
public struct PSKLabel: MLSCodable, Hashable, Sendable {
    public var id: PreSharedKeyID
    public var index: UInt16
    public var count: UInt16

    public init(id: PreSharedKeyID, index: UInt16, count: UInt16) {
        self.id = id
        self.index = index
        self.count = count
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        id = try PreSharedKeyID(from: &reader)
        index = try reader.readUInt16()
        count = try reader.readUInt16()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(id)
        writer.write(index)
        writer.write(count)
    }
}
