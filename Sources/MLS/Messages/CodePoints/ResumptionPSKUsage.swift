/// RFC 9420 §8.4: `uint8 ResumptionPSKUsage`. Nothing follows it, so unknown values are kept.
public struct ResumptionPSKUsage: RawRepresentable, MLSCodable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let reserved = ResumptionPSKUsage(rawValue: 0)
    public static let application = ResumptionPSKUsage(rawValue: 1)
    public static let reinit = ResumptionPSKUsage(rawValue: 2)
    public static let branch = ResumptionPSKUsage(rawValue: 3)

    public init(from reader: inout TLSReader) throws(DecodingError) {
        rawValue = try reader.readUInt8()
    }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
}
