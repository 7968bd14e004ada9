import Basics

/// The parts of a DID document (W3C DID Core §5) that atproto service auth reads.
struct DIDDocument: Sendable, Equatable {
    struct VerificationMethod: Sendable, Equatable {
        let id: String
        let type: String
        let controller: String
        let publicKeyMultibase: String?
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
        return DIDDocument(id: id, verificationMethods: methods)
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
