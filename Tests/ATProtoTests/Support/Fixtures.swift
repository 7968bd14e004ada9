import Basics
import Foundation
import Primitives
import TestSupport
@testable import ATProto

enum Fixtures {
    static let serviceDID = "did:web:mls.example.com"
    static let nsid = "blue.catbird.mls.getGroupInfo"

    /// A fresh random did:plc (24 base32 characters).
    static func randomPLC() -> DID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let identifier = SecureRandom.bytes(24).map { alphabet[Int($0 & 31)] }
        return try! DID("did:plc:" + String(identifier))
    }

    /// A DID document in the shape plc.directory serves.
    static func didDocument(id: String, verificationMethods: [String]) -> String {
        """
        {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/multikey/v1"],
         "id":\(ServiceAuthToken.jsonString(id)),
         "alsoKnownAs":["at://alice.example.com"],
         "verificationMethod":[\(verificationMethods.joined(separator: ","))],
         "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"https://pds.example.com"}]}
        """
    }

    static func verificationMethod(did: String, id: String = "#atproto", type: String = "Multikey",
                                   controller: String? = nil, multibase: String) -> String {
        let methodID = id.hasPrefix("#") ? did + id : id
        return "{\"id\":\(ServiceAuthToken.jsonString(methodID)),\"type\":\"\(type)\","
            + "\"controller\":\(ServiceAuthToken.jsonString(controller ?? did)),\"publicKeyMultibase\":\"\(multibase)\"}"
    }

    static func multikeyDocument(did: DID, key: ECDSAPrivateKey) -> String {
        didDocument(id: did.rawValue, verificationMethods: [
            verificationMethod(did: did.rawValue, multibase: Multikey.encode(publicKey: key.publicKey)),
        ])
    }
}
