import ATProto
import Basics
import Foundation
import MLS
import Primitives

/// Who this client is: the DID, how it gets tokens (its atproto signing key, or a token obtained
/// elsewhere), and its MLS signature key and cipher suite. Contains private keys: stored 0600.
public struct MLSClientIdentity: Codable, Sendable, Equatable {
    public var did: String
    /// `secp256k1` or `p256`, with the private scalar in hex; nil when an external token is used.
    public var atprotoKeyCurve: String?
    public var atprotoPrivateKey: String?
    /// A token obtained from a PDS (`--token`): used as is.
    public var externalToken: String?
    public var cipherSuite: UInt16
    /// The MLS signature private key (hex, the scheme of `cipherSuite`).
    public var mlsSignatureKey: String

    public init(did: String, atprotoKeyCurve: String?, atprotoPrivateKey: String?, externalToken: String?,
                cipherSuite: UInt16, mlsSignatureKey: String) {
        self.did = did
        self.atprotoKeyCurve = atprotoKeyCurve
        self.atprotoPrivateKey = atprotoPrivateKey
        self.externalToken = externalToken
        self.cipherSuite = cipherSuite
        self.mlsSignatureKey = mlsSignatureKey
    }

    public static let defaultSuite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    /// A new identity: a secp256k1 atproto key and a random did:plc (the dev PLC serves its document),
    /// or `did` with an external token.
    public static func generate(did: String? = nil, externalToken: String? = nil,
                                suite: CipherSuite = defaultSuite) throws(MLSClientError) -> MLSClientIdentity {
        let signing: SignaturePrivateKey
        do { signing = try suite.signatureScheme.generatePrivateKey() } catch { throw .mls(.crypto(error)) }
        if let did {
            guard (try? DID(did)) != nil else { throw .invalidArgument("not a did:plc or did:web DID: \(did)") }
            return MLSClientIdentity(did: did, atprotoKeyCurve: nil, atprotoPrivateKey: nil, externalToken: externalToken,
                                     cipherSuite: suite.rawValue, mlsSignatureKey: Hex.encode(signing.bytes))
        }
        let key: ECDSAPrivateKey
        do { key = try ECDSAPrivateKey.generate(curve: .secp256k1) } catch { throw .mls(.crypto(error)) }
        return MLSClientIdentity(did: randomPLC(), atprotoKeyCurve: "secp256k1", atprotoPrivateKey: Hex.encode(key.scalar),
                                 externalToken: nil, cipherSuite: suite.rawValue, mlsSignatureKey: Hex.encode(signing.bytes))
    }

    /// did:plc spec: 24 characters of base32 (a–z, 2–7). A real PLC derives it from the genesis
    /// operation; the dev PLC accepts any well-formed identifier.
    static func randomPLC() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        return "did:plc:" + String(SecureRandom.bytes(24).map { alphabet[Int($0 & 31)] })
    }

    public var suite: CipherSuite {
        get throws(MLSClientError) {
            guard let suite = CipherSuite(rawValue: cipherSuite) else { throw .storage("unknown cipher suite \(cipherSuite)") }
            return suite
        }
    }

    public var credential: Credential { .basic(identity: Array(did.utf8)) }

    public func signingKey() throws(MLSClientError) -> SignaturePrivateKey {
        guard let bytes = Hex.decode(mlsSignatureKey) else { throw .storage("MLS signature key is not hex") }
        let scheme = try suite.signatureScheme
        do { return try SignaturePrivateKey(scheme: scheme, bytes: bytes) } catch { throw .mls(.crypto(error)) }
    }

    public func atprotoKey() throws(MLSClientError) -> ECDSAPrivateKey? {
        guard let atprotoPrivateKey else { return nil }
        guard let scalar = Hex.decode(atprotoPrivateKey) else { throw .storage("atproto key is not hex") }
        let curve: ECCurve = atprotoKeyCurve == "p256" ? .p256 : .secp256k1
        do { return try ECDSAPrivateKey(curve: curve, scalar: scalar) } catch { throw .mls(.crypto(error)) }
    }

    /// Tokens for calls to `serviceDID`: minted per call with the atproto key, or the external token.
    public func tokenProvider(serviceDID: String) throws(MLSClientError) -> MLSTokenProvider? {
        if let key = try atprotoKey() {
            guard let issuer = try? DID(did) else { throw .storage("stored DID is malformed: \(did)") }
            return MLSTokenProviders.serviceAuth(issuer: issuer, audience: serviceDID, key: key)
        }
        return externalToken.map(MLSTokenProviders.fixed)
    }

    /// The DID document a PLC directory serves for this identity (the key as `#atproto` Multikey),
    /// naming `pds` as its `#atproto_pds` when given. A development identity has no PDS: the
    /// service then finds no public records of it (no blocks, no chat policy).
    public func didDocument(pds: String? = nil) throws(MLSClientError) -> String {
        guard let key = try atprotoKey() else { throw .invalidArgument("an identity with an external token has no local key") }
        var document: [String: Any] = [
            "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
            "id": did,
            "alsoKnownAs": [] as [String],
            "verificationMethod": [[
                "id": did + "#atproto", "type": "Multikey", "controller": did,
                "publicKeyMultibase": Multikey.encode(publicKey: key.publicKey),
            ]],
        ]
        if let pds { document["service"] = [["id": "#atproto_pds", "type": "AtprotoPersonalDataServer", "serviceEndpoint": pds]] }
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) else {
            throw .storage("cannot encode the DID document")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
