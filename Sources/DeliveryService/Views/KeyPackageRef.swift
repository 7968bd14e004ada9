import Basics
import DeliveryStore
import Lexicon

extension KeyPackageRef {
    init(_ stored: StoredKeyPackage) {
        self.init(did: stored.ownerDID, keyPackage: stored.keyPackage, keyPackageHash: Hex.encode(stored.ref),
                  cipherSuite: CipherSuiteName.name(stored.cipherSuite), expiresAt: Timestamp.rfc3339(stored.expiresAt))
    }
}
