import Primitives

/// A signed mutation as read from a request: its body projected against the contract, the
/// body's canonical DAG-CBOR and the transcript its signature must cover. Not yet trusted: only
/// `verified(publicKey:)` makes a `VerifiedSignedRequest`, after the key id and the Ed25519
/// signature check out.
public struct SignedRequest: Sendable {
    public let kind: SignedMutationKind
    /// The body, `$type` included.
    public let body: ChatValue
    public let signature: [UInt8]
    /// DAG-CBOR of the body with UUIDs as 16 raw bytes.
    public let canonicalBody: [UInt8]
    /// SHA-256 of the transcript: what identifies this exact request for idempotency.
    public let requestDigest: [UInt8]

    /// `body` must already be a projected body of `kind` (ChatProjection checked its `$type`).
    public init(kind: SignedMutationKind, body: ChatValue, signature: [UInt8]) {
        self.kind = kind
        self.body = body
        self.signature = signature
        canonicalBody = DAGCBOR.encode(body.dagCBOR(.signing))
        requestDigest = HashAlgorithm.sha256.hash(Self.transcript(kind: kind, canonicalBody: canonicalBody))
    }

    /// Domain ‖ canonical DAG-CBOR of the body.
    public var transcript: [UInt8] { Self.transcript(kind: kind, canonicalBody: canonicalBody) }

    static func transcript(kind: SignedMutationKind, canonicalBody: [UInt8]) -> [UInt8] {
        var out = Array(kind.domain.utf8)
        out.append(contentsOf: canonicalBody)
        return out
    }

    /// The `{body, signature}` object of a method's input (a `signedX` def): its body's `$type`
    /// picks the kind.
    public init(wrapper: ChatValue) throws(ChatInputError) {
        guard let body = wrapper["body"], let signature = wrapper["signature"]?.bytes,
              let typeID = body.type, let kind = SignedMutationKind(typeID: typeID) else {
            throw ChatInputError("signedRequest", "must hold a signed body and its signature")
        }
        self.init(kind: kind, body: body, signature: signature)
    }

    /// A method's JSON input (`{signedRequest: …}`) read against the method's lexicon, and its
    /// signed request.
    public static func parse(input bytes: [UInt8], method nsid: String,
                             projection: ChatProjection = ChatProjection()) throws(ChatInputError) -> SignedRequest {
        guard let input = projection.schema.method(nsid)?.input else { throw ChatInputError("", "\(nsid) takes no JSON input") }
        let value = try projection.project(json: bytes, as: input)
        guard let wrapper = value["signedRequest"] else { throw ChatInputError("signedRequest", "missing required field") }
        return try SignedRequest(wrapper: wrapper)
    }

    /// A body signed by `key` (clients).
    public static func sign(_ body: ChatValue, kind: SignedMutationKind, key: Ed25519PrivateKey) -> SignedRequest {
        let unsigned = SignedRequest(kind: kind, body: body, signature: [])
        return SignedRequest(kind: kind, body: body, signature: key.signature(for: unsigned.transcript))
    }

    /// `{body, signature}` as the lexicon's signed wrapper (as entries carry it).
    public var wrapper: ChatValue { .object(["body": body, "signature": .bytes(signature)]) }

    /// The wrapper as a method's input carries it: tagged with its def (`signedCommitTransition`…)
    /// where the input takes a union of wrappers (submitTransition, requestLeave).
    public func input(for nsid: String, schema: ChatSchema = .contract) -> ChatValue {
        guard case .object(let input)? = schema.method(nsid)?.input, case .ref(let name)? = input.properties["signedRequest"],
              case .union(let wrappers)? = schema.def(name),
              let wrapperDef = wrappers.first(where: { candidate in
                  guard case .object(let object)? = schema.def(candidate), case .union(let bodies)? = object.properties["body"] else { return false }
                  return bodies.contains(kind.rawValue)
              }) else { return .object(["signedRequest": wrapper]) }
        return .object(["signedRequest": .tagged(wrapperDef, ["body": body, "signature": .bytes(signature)])])
    }

    // The identity every signed body carries (the contract's defs description).

    public var actorDID: String { body["actorDid"]?.text ?? "" }
    public var actorDeviceID: ChatUUID? { body[kind.deviceField]?.uuid }
    public var keyID: String { body["keyId"]?.text ?? "" }
    public var authGeneration: UInt64 { body[kind.generationField]?.integer ?? 0 }
    public var signedAt: CanonicalTimestamp? { body["signedAt"]?.text.flatMap(CanonicalTimestamp.init) }
    public var operationID: ChatUUID? { body[kind.operationField]?.uuid }

    public enum VerificationError: Error, Sendable, Equatable {
        /// `keyId` is not the thumbprint of the key the device enrolled with.
        case keyMismatch
        case badSignature
    }

    /// Checks the body's `keyId` names `publicKey` and the signature verifies over the transcript
    /// (libsodium's verification, which refuses non-canonical and small-order encodings).
    public func verified(publicKey: [UInt8]) throws(VerificationError) -> VerifiedSignedRequest {
        guard ChatKeyID.of(publicKey: publicKey) == keyID else { throw .keyMismatch }
        guard signature.count == 64, let key = try? Ed25519PublicKey(verifyingBytes: publicKey),
              key.isValidSignature(signature, for: transcript) else { throw .badSignature }
        return VerifiedSignedRequest(request: self, publicKey: publicKey)
    }
}

/// A signed request whose signature verified under a device key: only `SignedRequest.verified`
/// builds one, so a handler that takes it cannot act on an unchecked body.
public struct VerifiedSignedRequest: Sendable {
    public let request: SignedRequest
    public let publicKey: [UInt8]

    fileprivate init(request: SignedRequest, publicKey: [UInt8]) {
        self.request = request
        self.publicKey = publicKey
    }

    public var kind: SignedMutationKind { request.kind }
    public var body: ChatValue { request.body }
}
