import ChatProtocol
import Primitives

/// A `#metadataSnapshot` a creation or commit carries (the service stores it and cannot read it):
/// bound to the coordinates it was encrypted for, the hash and size of its ciphertext agreeing, the
/// metadata version and origin the transition allows, and its author proof naming the signing
/// device as it was at the origin. Its nonce is recorded per (conversation, generation, epoch) by
/// the store, so that a reuse is refused (`MetadataNonceReuse`). Its `avatarBinding` is bound by the
/// store where the snapshot is stored (`ChatTransaction.setMetadataAvatar`).
enum MetadataSnapshotCheck {
    static func check(_ snapshot: ChatValue, at coordinates: ConversationCoordinates, version: UInt64,
                      origin: ChatUUID) throws {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidMetadataSnapshot, reason) }
        guard let ciphertext = snapshot["ciphertext"]?.bytes, let hash = snapshot["ciphertextSha256"]?.bytes,
              let size = snapshot["ciphertextSize"]?.integer else { throw refuse("incomplete snapshot") }
        guard snapshot["coordinate"] == coordinates.metadataCryptoContext else { throw refuse("coordinate is not the transition's") }
        guard HashAlgorithm.sha256.hash(ciphertext) == hash, UInt64(ciphertext.count) == size else {
            throw refuse("ciphertextSha256 and ciphertextSize must describe the ciphertext")
        }
        guard snapshot["metadataVersion"]?.integer == version, snapshot["originTransitionId"]?.uuid == origin,
              snapshot["authorProof"]?["originTransitionId"]?.uuid == origin else {
            throw refuse("metadataVersion \(version) and origin \(origin) are expected")
        }
    }

    /// The author proof of a snapshot that originates in this transition: the signing device.
    static func checkAuthor(_ snapshot: ChatValue, request: SignedRequest, publicKey: [UInt8], originSeq: Int64) throws {
        guard let proof = snapshot["authorProof"], proof["authorDid"]?.text == request.actorDID,
              proof["authorDeviceId"]?.uuid == request.actorDeviceID, proof["authorKeyId"]?.text == request.keyID,
              proof["signaturePublicKey"]?.bytes == publicKey, proof["authGenerationAtOrigin"]?.integer == request.authGeneration,
              proof["originSeq"]?.integer == UInt64(originSeq)
        else { throw ChatRefusal(.invalidMetadataSnapshot, "authorProof must name the signing device at this transition") }
    }

    /// A commit's snapshot (defs `metadataSnapshot`): the conversation's current metadata (version,
    /// origin, author proof, avatar) encrypted again for the commit's new epoch.
    static func checkReencrypted(_ snapshot: ChatValue, at next: ConversationCoordinates, current stored: [UInt8]) throws {
        let current = try ChatViews.json(stored, as: "metadataSnapshot")
        guard let version = current["metadataVersion"]?.integer, let origin = current["originTransitionId"]?.uuid else {
            throw XRPCError.internalError
        }
        try check(snapshot, at: next, version: version, origin: origin)
        guard snapshot["authorProof"] == current["authorProof"], snapshot["avatarBinding"] == current["avatarBinding"] else {
            throw ChatRefusal(.invalidMetadataSnapshot, "an epoch change keeps the snapshot's author proof and avatar")
        }
    }
}
