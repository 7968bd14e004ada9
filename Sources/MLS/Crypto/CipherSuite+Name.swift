extension CipherSuite {
    /// The RFC 9420 §17.1 registry name, as the delivery service's API carries it.
    public var name: String {
        switch rawValue {
        case 1: "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"
        case 2: "MLS_128_DHKEMP256_AES128GCM_SHA256_P256"
        case 3: "MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519"
        case 4: "MLS_256_DHKEMX448_AES256GCM_SHA512_Ed448"
        case 5: "MLS_256_DHKEMP521_AES256GCM_SHA512_P521"
        case 6: "MLS_256_DHKEMX448_CHACHA20POLY1305_SHA512_Ed448"
        case 7: "MLS_256_DHKEMP384_AES256GCM_SHA384_P384"
        case 0x004D: "MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519"  // OpenMLS's X-Wing suite
        default: String(rawValue)
        }
    }

    /// Every suite with a name: the RFC's seven and OpenMLS's X-Wing suite.
    public static let named: [CipherSuite] = allCases + [.mls256XWingChaCha20Poly1305SHA256Ed25519]

    /// The suite a registry name, or its decimal id, denotes; nil for anything else.
    public init?(name: String) {
        if let suite = Self.named.first(where: { $0.name == name }) {
            self = suite
        } else if let id = UInt16(name), let suite = CipherSuite(rawValue: id) {
            self = suite
        } else {
            return nil
        }
    }
}
