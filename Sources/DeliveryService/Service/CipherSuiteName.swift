/// RFC 9420 §17.1 cipher suite names, as the API carries them (`cipherSuite`).
enum CipherSuiteName {
    static let names: [UInt16: String] = [
        1: "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        2: "MLS_128_DHKEMP256_AES128GCM_SHA256_P256",
        3: "MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519",
        4: "MLS_256_DHKEMX448_AES256GCM_SHA512_Ed448",
        5: "MLS_256_DHKEMP521_AES256GCM_SHA512_P521",
        6: "MLS_256_DHKEMX448_CHACHA20POLY1305_SHA512_Ed448",
        7: "MLS_256_DHKEMP384_AES256GCM_SHA384_P384",
    ]
    private static let ids = Dictionary(uniqueKeysWithValues: names.map { ($1, $0) })

    static func name(_ id: UInt16) -> String { names[id] ?? String(id) }

    /// The suite id for a name (or its decimal id); 400 InvalidCipherSuite otherwise.
    static func id(_ text: String) throws(XRPCError) -> UInt16 {
        if let id = ids[text] { return id }
        if let id = UInt16(text), names[id] != nil { return id }
        throw XRPCError(400, .invalidCipherSuite, "unsupported cipher suite \(text.prefix(80))")
    }
}
