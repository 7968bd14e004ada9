import ATProto
import Basics
import Primitives

/// A user for tests: a real signing key, a random did:plc, its DID document (naming its PDS), and
/// real service-auth tokens signed with the key.
public struct TestIdentity: Sendable {
    public let did: DID
    public let key: ECDSAPrivateKey
    /// The `#atproto_pds` endpoint its DID document names (a `LoopbackPDS` in tests that read its records).
    public var pdsEndpoint = "https://pds.example.com"

    public init(curve: ECCurve = .secp256k1) {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let identifier = String(SecureRandom.bytes(24).map { alphabet[Int($0 & 31)] })
        did = try! DID("did:plc:" + identifier)
        key = try! ECDSAPrivateKey.generate(curve: curve)
    }

    /// A DID document in the shape plc.directory serves, with the key as `#atproto` Multikey.
    public var didDocument: String {
        let id = did.rawValue
        return """
        {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/multikey/v1"],"id":"\(id)",
         "alsoKnownAs":["at://test.example.com"],
         "verificationMethod":[{"id":"\(id)#atproto","type":"Multikey","controller":"\(id)",
           "publicKeyMultibase":"\(Multikey.encode(publicKey: key.publicKey))"}],
         "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"\(pdsEndpoint)"}]}
        """
    }

    /// Serves the DID document from a loopback PLC directory.
    public func publish(on plc: LoopbackHTTPServer) {
        plc.setJSON("/\(did.rawValue)", didDocument)
    }

    /// A fresh token for one method call (a new jti each time).
    public func token(audience: String, nsid: String, expiresIn: Double = 60) -> String {
        try! ServiceAuthToken.mint(issuer: did, audience: audience, lexiconMethod: nsid, key: key, expiresIn: expiresIn)
    }
}
