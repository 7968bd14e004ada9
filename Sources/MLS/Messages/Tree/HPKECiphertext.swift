/// RFC 9420 §7.6: an HPKE encapsulation and ciphertext.
public struct HPKECiphertext: MLSCodable, Hashable, Sendable {
    public var kemOutput: [UInt8]
    public var ciphertext: [UInt8]

    public init(kemOutput: [UInt8], ciphertext: [UInt8]) {
        self.kemOutput = kemOutput
        self.ciphertext = ciphertext
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        kemOutput = try reader.readOpaque()
        ciphertext = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(kemOutput)
        writer.writeOpaque(ciphertext)
    }
}
