/// RFC 9420 §5.3: a member's identity as a basic identity or an X.509 chain.
public enum Credential: MLSCodable, Hashable, Sendable {
    case basic(identity: [UInt8])
    case x509(certificates: [Certificate])

    public var credentialType: CredentialType {
        switch self {
        case .basic: .basic
        case .x509: .x509
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        let type = try CredentialType(from: &reader)
        switch type {
        case .basic: self = .basic(identity: try reader.readOpaque())
        case .x509: self = .x509(certificates: try reader.readVector())
        default: throw .invalidValue("unknown credential type \(type.rawValue)")
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(credentialType)
        switch self {
        case .basic(let identity): writer.writeOpaque(identity)
        case .x509(let certificates): writer.writeVector(certificates)
        }
    }
}
