/// Builders and decoders for the extensions RFC 9420 §17.3 defines. Each decoder checks the type
/// and that the data is used exactly.
extension Extension {
    public static func applicationID(_ id: [UInt8]) -> Extension {
        var writer = TLSWriter()
        writer.writeOpaque(id)
        return Extension(extensionType: .applicationID, extensionData: writer.bytes)
    }

    public static func ratchetTree(_ tree: RatchetTree) -> Extension {
        Extension(extensionType: .ratchetTree, extensionData: tree.encoded())
    }

    public static func requiredCapabilities(_ capabilities: RequiredCapabilities) -> Extension {
        Extension(extensionType: .requiredCapabilities, extensionData: capabilities.encoded())
    }

    public static func externalPub(_ key: [UInt8]) -> Extension {
        var writer = TLSWriter()
        writer.writeOpaque(key)
        return Extension(extensionType: .externalPub, extensionData: writer.bytes)
    }

    public static func externalSenders(_ senders: [ExternalSender]) -> Extension {
        var writer = TLSWriter()
        writer.writeVector(senders)
        return Extension(extensionType: .externalSenders, extensionData: writer.bytes)
    }

    /// RFC 9420 §5.3.3: `opaque application_id<V>`.
    public func decodeApplicationID() throws(DecodingError) -> [UInt8] {
        try decodeData(as: .applicationID) { (r: inout TLSReader) throws(DecodingError) in try r.readOpaque() }
    }

    /// RFC 9420 §12.4.3.3: `optional<Node> ratchet_tree<V>`, decoded within `limits`.
    public func decodeRatchetTree(limits: TreeLimits = .unlimited) throws(DecodingError) -> RatchetTree {
        try decodeData(as: .ratchetTree, limits: limits.decoding) { (r: inout TLSReader) throws(DecodingError) in
            try RatchetTree(from: &r)
        }
    }

    /// RFC 9420 §11.1.
    public func decodeRequiredCapabilities() throws(DecodingError) -> RequiredCapabilities {
        try decodeData(as: .requiredCapabilities) { (r: inout TLSReader) throws(DecodingError) in
            try RequiredCapabilities(from: &r)
        }
    }

    /// RFC 9420 §12.4.3.2: `HPKEPublicKey external_pub`.
    public func decodeExternalPub() throws(DecodingError) -> [UInt8] {
        try decodeData(as: .externalPub) { (r: inout TLSReader) throws(DecodingError) in try r.readOpaque() }
    }

    /// RFC 9420 §12.1.8.1: `ExternalSender external_senders<V>`.
    public func decodeExternalSenders() throws(DecodingError) -> [ExternalSender] {
        try decodeData(as: .externalSenders) { (r: inout TLSReader) throws(DecodingError) in
            try r.readVector(of: ExternalSender.self)
        }
    }

    private func decodeData<T>(
        as type: ExtensionType, limits: DecodingLimits = .unlimited, _ body: (inout TLSReader) throws(DecodingError) -> T
    ) throws(DecodingError) -> T {
        guard extensionType == type else {
            throw .invalidValue("extension type \(extensionType.rawValue) is not \(type.rawValue)")
        }
        var reader = TLSReader(extensionData, limits: limits)
        let value = try body(&reader)
        try reader.finish()
        return value
    }
}
