/// RFC 9420 §6: the envelope for every message on the wire.
public struct MLSMessage: MLSCodable, Hashable, Sendable {
    public enum Body: Hashable, Sendable {
        case publicMessage(PublicMessage)
        case privateMessage(PrivateMessage)
        case welcome(Welcome)
        case groupInfo(GroupInfo)
        case keyPackage(KeyPackage)

        public var wireFormat: WireFormat {
            switch self {
            case .publicMessage: .publicMessage
            case .privateMessage: .privateMessage
            case .welcome: .welcome
            case .groupInfo: .groupInfo
            case .keyPackage: .keyPackage
            }
        }
    }

    public var version: ProtocolVersion
    public var body: Body

    public var wireFormat: WireFormat { body.wireFormat }

    public init(version: ProtocolVersion = .mls10, body: Body) {
        self.version = version
        self.body = body
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        version = try ProtocolVersion(from: &reader)
        let wireFormat = try WireFormat(from: &reader)
        switch wireFormat {
        case .publicMessage: body = .publicMessage(try PublicMessage(from: &reader))
        case .privateMessage: body = .privateMessage(try PrivateMessage(from: &reader))
        case .welcome: body = .welcome(try Welcome(from: &reader))
        case .groupInfo: body = .groupInfo(try GroupInfo(from: &reader))
        case .keyPackage: body = .keyPackage(try KeyPackage(from: &reader))
        default: throw .invalidValue("unknown wire format \(wireFormat.rawValue)")
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(body.wireFormat)
        switch body {
        case .publicMessage(let message): writer.write(message)
        case .privateMessage(let message): writer.write(message)
        case .welcome(let welcome): writer.write(welcome)
        case .groupInfo(let groupInfo): writer.write(groupInfo)
        case .keyPackage(let keyPackage): writer.write(keyPackage)
        }
    }
}
