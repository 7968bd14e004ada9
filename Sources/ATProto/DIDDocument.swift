import Basics
import Foundation

/// The parts of a DID document (W3C DID Core §5) that atproto reads: the verification methods
/// (service auth's signing key) and the services (the account's PDS, where its records are).
struct DIDDocument: Sendable, Equatable {
    struct VerificationMethod: Sendable, Equatable {
        let id: String
        let type: String
        let controller: String
        let publicKeyMultibase: String?
    }

    /// W3C DID Core §5.4: an entry of `service` with a string endpoint.
    struct Service: Sendable, Equatable {
        let id: String
        let type: String
        let endpoint: String
    }

    enum ParseError: Error, Sendable, Equatable {
        case notAJSONObject
        case missingID
        case idMismatch
        case noAtprotoKey
        case unsupportedKeyType(String)
        case badKey(Multikey.DecodingError)
    }

    let id: String
    let verificationMethods: [VerificationMethod]
    var services: [Service] = []

    /// Entries of `verificationMethod` that are not objects with string fields are skipped; the
    /// document is only rejected when it is not an object or has no string `id`.
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> DIDDocument {
        guard let object = JSONValue.parseObject(bytes) else { throw .notAJSONObject }
        guard let id = object["id"]?.stringValue else { throw .missingID }
        var methods: [VerificationMethod] = []
        if case .array(let entries)? = object["verificationMethod"] {
            for case .object(let entry) in entries {
                guard let methodID = entry["id"]?.stringValue, let type = entry["type"]?.stringValue,
                      let controller = entry["controller"]?.stringValue else { continue }
                methods.append(VerificationMethod(id: methodID, type: type, controller: controller,
                                                  publicKeyMultibase: entry["publicKeyMultibase"]?.stringValue))
            }
        }
        var services: [Service] = []
        if case .array(let entries)? = object["service"] {
            for case .object(let entry) in entries {
                guard let serviceID = entry["id"]?.stringValue, let type = entry["type"]?.stringValue,
                      let endpoint = entry["serviceEndpoint"]?.stringValue else { continue }
                services.append(Service(id: serviceID, type: type, endpoint: endpoint))
            }
        }
        return DIDDocument(id: id, verificationMethods: methods, services: services)
    }

    /// The account's PDS (atproto DID spec, "the atproto_pds service"): the service with id
    /// `#atproto_pds` or `<did>#atproto_pds` and type `AtprotoPersonalDataServer`, whose endpoint
    /// is an http(s) URL without credentials, query or fragment; nil when the document names none,
    /// or names it twice.
    func pdsEndpoint(for did: DID) -> String? {
        let matching = services.filter { $0.id == "#atproto_pds" || $0.id == did.rawValue + "#atproto_pds" }
        guard matching.count == 1, let service = matching.first, service.type == "AtprotoPersonalDataServer",
              let url = URLComponents(string: service.endpoint), url.scheme == "https" || url.scheme == "http",
              url.host?.isEmpty == false, url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
              service.endpoint.utf8.count <= 2048 else { return nil }
        var endpoint = service.endpoint
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        return endpoint
    }

    /// The atproto signing key (atproto DID spec): the method with id `#atproto` or
    /// `<did>#atproto`, controlled by the DID itself.
    func atprotoSigningKey(for did: DID) throws(ParseError) -> AtprotoSigningKey {
        guard id == did.rawValue else { throw .idMismatch }
        guard let method = verificationMethods.first(where: {
            ($0.id == "#atproto" || $0.id == did.rawValue + "#atproto") && $0.controller == did.rawValue
        }) else { throw .noAtprotoKey }
        guard let multibase = method.publicKeyMultibase else { throw .noAtprotoKey }
        let decoded: Result<AtprotoSigningKey, Multikey.DecodingError>
        switch method.type {
        case "Multikey":
            decoded = Result { () throws(Multikey.DecodingError) in try Multikey.decode(multibase) }
        case "EcdsaSecp256k1VerificationKey2019":
            decoded = Result { () throws(Multikey.DecodingError) in try Multikey.decodeLegacy(multibase, curve: .secp256k1) }
        case "EcdsaSecp256r1VerificationKey2019":
            decoded = Result { () throws(Multikey.DecodingError) in try Multikey.decodeLegacy(multibase, curve: .p256) }
        default:
            throw .unsupportedKeyType(method.type)
        }
        switch decoded {
        case .success(let key): return key
        case .failure(let error): throw .badKey(error)
        }
    }
}
