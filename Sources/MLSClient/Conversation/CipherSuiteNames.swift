import MLS

/// RFC 9420 §17.1 names, as the API's `cipherSuite` fields carry them.
public enum CipherSuiteNames {
    static let names: [UInt16: String] = [
        1: "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        2: "MLS_128_DHKEMP256_AES128GCM_SHA256_P256",
        3: "MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519",
        4: "MLS_256_DHKEMX448_AES256GCM_SHA512_Ed448",
        5: "MLS_256_DHKEMP521_AES256GCM_SHA512_P521",
        6: "MLS_256_DHKEMX448_CHACHA20POLY1305_SHA512_Ed448",
        7: "MLS_256_DHKEMP384_AES256GCM_SHA384_P384",
        0x004D: "MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519",  // OpenMLS's X-Wing suite
    ]

    public static func name(_ suite: CipherSuite) -> String { names[suite.rawValue] ?? String(suite.rawValue) }

    public static func suite(named name: String) -> CipherSuite? {
        if let id = names.first(where: { $0.value == name })?.key ?? UInt16(name) { return CipherSuite(rawValue: id) }
        return nil
    }
}
