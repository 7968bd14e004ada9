import ChatProtocol
import MLS
import Primitives

/// A conversation's encrypted metadata (defs `metadataSnapshot`): the title, signed by the device
/// that set it, encrypted with AES-256-GCM under a key exported from the epoch it is sent at. The
/// service stores the snapshot and cannot read it; members decrypt it, and a commit re-encrypts the
/// same signed content for the new epoch. An avatar is an encrypted `metadata` blob: its key travels
/// in the signed content (`#metadataAvatarEmbed`), and the snapshot names the blob
/// (`avatarBinding`, part of the AAD) so that the service binds it.
enum ChatMetadata {
    static let exporterLabel = "blue.catbird.chat.metadata.v1"
    static let contentDomain = "CATBIRD-CHAT-METADATA-CONTENT\0"
    static let aadDomain = "CATBIRD-CHAT-METADATA\0"
    static let avatarDomain = "CATBIRD-CHAT-METADATA-AVATAR-BLOB\0"

    /// The signed plaintext (`#metadataPlaintext`) of a new metadata version by `device`.
    /// `avatar` is the content's `#metadataAvatarEmbed`, as DAG-CBOR.
    static func plaintext(title: String, version: UInt64, origin: ChatUUID, device: ChatDeviceKey, avatar: DAGCBORValue? = nil) -> [UInt8] {
        guard case .map(var content) = ChatValue.object([
            "protocol": .text("blue.catbird.chat.metadata"), "version": .integer(1), "originTransitionId": .bytes(origin.bytes),
            "metadataVersion": .integer(version), "authorDid": .text(device.did.rawValue), "authorDeviceId": .bytes(device.deviceID.bytes),
            "authorKeyId": .text(device.keyID), "title": .text(title),
        ]).dagCBOR(.signing) else { return [] }
        content["avatar"] = avatar
        let signed = Array(contentDomain.utf8) + DAGCBOR.encode(.map(content))
        return DAGCBOR.encode(.map(["content": .map(content), "contentSignature": .bytes(device.key.signature(for: signed))]))
    }

    /// The `#metadataAvatarEmbed` of a plaintext, if it has one.
    static func avatar(_ plaintext: [UInt8]) -> DAGCBORValue? {
        (try? DAGCBOR.decode(plaintext))?["content"]?["avatar"]
    }

    /// `#metadataAvatarBlobAad` after its domain: binds the avatar's ciphertext to the conversation
    /// and the metadata version that first named it.
    static func avatarAAD(conversation: ChatUUID, origin: ChatUUID, version: UInt64, blobID: ChatUUID, mediaType: String,
                          plaintextSize: UInt64) -> [UInt8] {
        Array(avatarDomain.utf8) + DAGCBOR.encode(.map([
            "protocol": .text("blue.catbird.chat.metadata.avatar"), "conversationId": .bytes(conversation.bytes),
            "originTransitionId": .bytes(origin.bytes), "originalMetadataVersion": .unsigned(version), "blobId": .bytes(blobID.bytes),
            "purpose": .text("metadata"), "mediaType": .text(mediaType), "plaintextSize": .unsigned(plaintextSize),
        ]))
    }

    /// The snapshot of `plaintext` for `coordinates`, under `group`'s epoch.
    static func seal(_ plaintext: [UInt8], version: UInt64, origin: ChatUUID, authorProof: ChatValue, avatarBinding: ChatValue? = nil,
                     coordinates: ConversationCoordinates, group: Group) throws -> ChatValue {
        let key = try exportedKey(group, coordinates: coordinates, version: version)
        let nonce = SecureRandom.bytes(12)
        let size = UInt64(plaintext.count + 16)
        let ciphertext = try AEADAlgorithm.aes256GCM.seal(key: key, nonce: nonce, plaintext: plaintext,
                                                          authenticating: aad(coordinates, version: version, origin: origin, size: size,
                                                                              avatarBinding: avatarBinding))
        var snapshot: [String: ChatValue] = [
            "coordinate": coordinates.metadataCryptoContext, "originTransitionId": .uuid(origin), "metadataVersion": .integer(version),
            "nonce": .bytes(nonce), "ciphertext": .bytes(ciphertext), "ciphertextSha256": .bytes(HashAlgorithm.sha256.hash(ciphertext)),
            "ciphertextSize": .integer(size), "authorProof": authorProof,
        ]
        snapshot["avatarBinding"] = avatarBinding
        return .object(snapshot)
    }

    /// The plaintext of a snapshot a member can read, and its title.
    static func open(_ snapshot: ChatValue, group: Group) throws -> (plaintext: [UInt8], title: String) {
        guard let coordinate = snapshot["coordinate"], let version = snapshot["metadataVersion"]?.integer,
              let origin = snapshot["originTransitionId"]?.uuid, let nonce = snapshot["nonce"]?.bytes,
              let ciphertext = snapshot["ciphertext"]?.bytes, let id = coordinate["conversationId"]?.bytes.flatMap(ChatUUID.init(bytes:)),
              let generation = coordinate["generation"]?.integer, let epoch = coordinate["epoch"]?.integer,
              let hash = coordinate["groupContextHash"]?.bytes, let groupID = coordinate["groupId"]?.bytes,
              let tag = coordinate["confirmationTag"]?.bytes else { throw MLSClientError.invalidServerData("incomplete metadata snapshot") }
        let coordinates = ConversationCoordinates(conversationID: id, generation: generation, stateVersion: 0, groupID: groupID,
                                                  epoch: epoch, groupContextHash: hash, confirmationTag: tag, lifecycle: .active)
        let key = try exportedKey(group, coordinates: coordinates, version: version)
        let plaintext = try AEADAlgorithm.aes256GCM.open(
            key: key, nonce: nonce, ciphertext: ciphertext,
            authenticating: aad(coordinates, version: version, origin: origin, size: UInt64(ciphertext.count),
                                avatarBinding: snapshot["avatarBinding"]))
        let title = try DAGCBOR.decode(plaintext)["content"]?["title"].flatMap { if case .text(let t) = $0 { t } else { nil } } ?? ""
        return (plaintext, title)
    }

    /// Checks that `plaintext` (a `#metadataPlaintext`) is content signed by `author`'s device
    /// with `publicKey`, for `version` set in transition `origin`.
    static func verify(_ plaintext: [UInt8], author: String, device: ChatUUID, publicKey: [UInt8], version: UInt64, origin: ChatUUID) throws {
        let decoded = try DAGCBOR.decode(plaintext)
        guard let content = decoded["content"], case .bytes(let signature)? = decoded["contentSignature"],
              content["authorDid"] == .text(author), content["authorDeviceId"] == .bytes(device.bytes),
              content["metadataVersion"] == .unsigned(version), content["originTransitionId"] == .bytes(origin.bytes),
              let key = try? Ed25519PublicKey(verifyingBytes: publicKey),
              key.isValidSignature(signature, for: Array(contentDomain.utf8) + DAGCBOR.encode(content)) else {
            throw MLSClientError.invalidServerData("the metadata is not signed by the device that set it")
        }
    }

    static func exportedKey(_ group: Group, coordinates: ConversationCoordinates, version: UInt64) throws -> [UInt8] {
        let context = ChatValue.object([
            "protocol": .text("blue.catbird.chat.metadata"), "version": .integer(1), "conversationId": .bytes(coordinates.conversationID.bytes),
            "generation": .integer(coordinates.generation), "epoch": .integer(coordinates.epoch),
            "groupContextHash": .bytes(coordinates.groupContextHash), "metadataVersion": .integer(version),
        ])
        return try group.exportSecret(label: exporterLabel, context: DAGCBOR.encode(context.dagCBOR(.signing)), length: 32)
    }

    /// `#metadataAad` after its domain; the snapshot's `avatarBinding` is in it (`#metadataAadAvatarBinding`, the id as bytes).
    static func aad(_ coordinates: ConversationCoordinates, version: UInt64, origin: ChatUUID, size: UInt64,
                    avatarBinding: ChatValue? = nil) -> [UInt8] {
        var aad: [String: ChatValue] = [
            "protocol": .text("blue.catbird.chat.metadata"), "version": .integer(1), "coordinate": coordinates.metadataCryptoContext,
            "metadataVersion": .integer(version), "originTransitionId": .bytes(origin.bytes), "ciphertextSize": .integer(size),
        ]
        if let binding = avatarBinding, let id = binding["blobId"]?.uuid, let hash = binding["ciphertextSha256"]?.bytes,
           let size = binding["ciphertextSize"]?.integer {
            aad["avatarBinding"] = .object(["blobId": .bytes(id.bytes), "ciphertextSha256": .bytes(hash), "ciphertextSize": .integer(size),
                                            "purpose": .text("metadata")])
        }
        return Array(aadDomain.utf8) + DAGCBOR.encode(ChatValue.object(aad).dagCBOR(.signing))
    }
}
