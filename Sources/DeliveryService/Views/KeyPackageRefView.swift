import DeliveryStore

/// `blue.catbird.mls.defs#keyPackageRef`.
struct KeyPackageRefView: Codable, Sendable {
    var did: String
    var keyPackage: ATBytes
    var keyPackageHash: String
    var cipherSuite: String
    var expiresAt: String

    init(_ stored: StoredKeyPackage) {
        did = stored.ownerDID
        keyPackage = ATBytes(stored.keyPackage)
        keyPackageHash = Hex.encode(stored.ref)
        cipherSuite = CipherSuiteName.name(stored.cipherSuite)
        expiresAt = Timestamp.rfc3339(stored.expiresAt)
    }
}
