import ATProto
import Basics
import Foundation
import MLS
import Primitives

/// A chat user driven by the bench: a did:plc with a secp256k1 key (service-auth tokens, as a PDS
/// signs them) and an Ed25519 MLS signing key with a BasicCredential naming the DID.
struct BenchUser: Sendable {
    static let suite = CipherSuite(rawValue: 1)!
    static let suiteName = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"

    let did: DID
    let key: ECDSAPrivateKey
    let signingKey: SignaturePrivateKey

    init() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let identifier = String(SecureRandom.bytes(24).map { alphabet[Int($0 & 31)] })
        did = try DID("did:plc:" + identifier)
        key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        signingKey = try Self.suite.signatureScheme.generatePrivateKey()
    }

    /// A user saved before (the chat bench's state): its DID and token key, a fresh MLS key.
    init(did: DID, key: ECDSAPrivateKey) throws {
        self.init(did: did, key: key, signingKey: try Self.suite.signatureScheme.generatePrivateKey())
    }

    private init(did: DID, key: ECDSAPrivateKey, signingKey: SignaturePrivateKey) {
        self.did = did
        self.key = key
        self.signingKey = signingKey
    }

    /// Another device of the same account: the same DID and token key, its own MLS signing key.
    func device() throws -> BenchUser {
        BenchUser(did: did, key: key, signingKey: try Self.suite.signatureScheme.generatePrivateKey())
    }

    var credential: Credential { .basic(identity: Array(did.rawValue.utf8)) }

    /// A DID document in the shape plc.directory serves, with the key as `#atproto` Multikey and no
    /// PDS (so the chat contract's relationship checks find no records, and read none).
    var didDocument: String {
        let id = did.rawValue
        return """
        {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/multikey/v1"],"id":"\(id)",\
        "alsoKnownAs":["at://bench.example.com"],\
        "verificationMethod":[{"id":"\(id)#atproto","type":"Multikey","controller":"\(id)",\
        "publicKeyMultibase":"\(Multikey.encode(publicKey: key.publicKey))"}]}
        """
    }

    /// A fresh service-auth token for one call (a new random jti each time).
    func token(audience: String, nsid: String, expiresIn: Double = 900) throws -> String {
        try ServiceAuthToken.mint(issuer: did, audience: audience, lexiconMethod: nsid, key: key, expiresIn: expiresIn)
    }

    /// A KeyPackage valid from an hour ago for 30 days.
    func makeKeyPackage() throws -> KeyPackageBundle {
        let now = UInt64(Date().timeIntervalSince1970)
        return try KeyPackageBundle.generate(suite: Self.suite, credential: credential, signingKey: signingKey,
                                             lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 30 * 86_400))
    }
}
