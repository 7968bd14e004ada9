import Basics
import MLS

/// A published KeyPackage with its private keys, kept until a Welcome uses it.
struct StoredKeyPackage: Codable, Sendable {
    /// KeyPackage encoding (RFC 9420 §10), hex.
    var keyPackage: String
    var initPrivateKey: String
    var encryptionPrivateKey: String

    init(_ bundle: KeyPackageBundle) {
        keyPackage = Hex.encode(bundle.keyPackage.encoded())
        initPrivateKey = Hex.encode(bundle.initPrivateKey)
        encryptionPrivateKey = Hex.encode(bundle.encryptionPrivateKey)
    }

    func bundle(signingKey: SignaturePrivateKey) throws(MLSClientError) -> KeyPackageBundle {
        guard let encoded = Hex.decode(keyPackage), let initKey = Hex.decode(initPrivateKey),
              let encryptionKey = Hex.decode(encryptionPrivateKey) else { throw .storage("key package file is not hex") }
        let package: KeyPackage
        do { package = try KeyPackage(decoding: encoded) } catch { throw .storage("stored key package: \(error)") }
        return KeyPackageBundle(keyPackage: package, initPrivateKey: initKey, encryptionPrivateKey: encryptionKey,
                                signingKey: signingKey)
    }
}
