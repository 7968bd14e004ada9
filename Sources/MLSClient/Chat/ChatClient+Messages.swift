import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Messages

    /// Sends `text` to a conversation this device holds a leaf in; returns the stored entry.
    @discardableResult
    public func send(_ conversation: ChatUUID, text: String) throws -> ChatValue {
        try sync(conversation)
        _ = try current(conversation)
        return try post(try seal(text, in: conversation, at: try coordinates(conversation)), in: conversation)
    }

    /// Sends a sealed sendMessage request; returns the stored entry.
    func post(_ request: SignedRequest, in conversation: ChatUUID) throws -> ChatValue {
        api.capture?.signed(request, publicKey: device.publicKey)
        let entry = try api.signed("sendMessage", request)["entry"] ?? .object([:])
        if let seq = entry["seq"]?.integer, var membership = conversations[conversation] {
            membership.lastSeq = max(membership.lastSeq, seq)
            conversations[conversation] = membership
        }
        return entry
    }

    /// The signed sendMessage request of `text` at `prior`, not sent: the message is encrypted (its
    /// ratchet generation spent) with the contract's frame and AAD.
    public func seal(_ text: String, in conversation: ChatUUID, at prior: ConversationCoordinates) throws -> SignedRequest {
        try seal(message: .object(["text": .text(text)]), id: .random(), bindings: [], in: conversation, at: prior)
    }

    /// The signed sendMessage request of a `#messageFrameBody` with its `blobBindings`.
    func seal(message: ChatValue, id messageID: ChatUUID, bindings: [ChatValue], in conversation: ChatUUID,
              at prior: ConversationCoordinates) throws -> SignedRequest {
        var membership = try current(conversation)
        let aad = MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior)
        let frame = ChatValue.object([
            "protocol": .text("blue.catbird.chat.application"), "version": .integer(1), "messageId": .bytes(messageID.bytes),
            "context": prior.aadPriorContext, "body": .tagged("messageFrameVariant", ["message": message]),
        ])
        let message = try membership.group.encrypt(DAGCBOR.encode(frame.dagCBOR(.signing)),
                                                   authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.applicationDomain, aad: aad))
        conversations[conversation] = membership
        let bytes = message.encoded()
        return SignedRequest.sign(body(.applicationSend, [
            "messageId": .uuid(messageID), "prior": prior.value, "aad": aad,
            "applicationMessage": .object(["framing": .text("mlsMessage"), "contentType": .text("privateMessageApplication"),
                                           "bytes": .bytes(bytes), "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))]),
            "blobBindings": .array(bindings),
        ]), kind: .applicationSend, key: device.key)
    }

    // MARK: Typing

    /// Publishes a typing indicator at `coordinates` (the conversation's current ones, read first
    /// unless given); returns the service's `#typingEvent` (which lasts 8 s).
    @discardableResult
    public func publishTyping(_ conversation: ChatUUID, at coordinates: ConversationCoordinates? = nil,
                              isTyping: Bool = true) throws -> ChatValue {
        try signed("publishTyping", .typing, [
            "typingId": .uuid(.random()), "coordinates": try (coordinates ?? self.coordinates(conversation)).value,
            "isTyping": .bool(isTyping),
        ])["typing"] ?? .object([:])
    }

    /// The messages of other devices received since the last call, reading the log first. What was
    /// read before this device's interval ended is still handed out once (see `ChatMembership.ended`).
    public func read(_ conversation: ChatUUID) throws -> [Message] {
        try sync(conversation)
        defer { conversations[conversation]?.unread = [] }
        return conversations[conversation]?.unread ?? []
    }

    /// Reads the entries after the last one read: every entry's signature is verified against its
    /// signer's leaf key (which is the device's key) before use; commits are processed, metadata
    /// changes opened, messages decrypted and kept for `read`. The entry that ends this device's
    /// interval (its leaf removed, the conversation closed or reset) is the last it reads.
    public func sync(_ conversation: ChatUUID) throws {
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        reading: while membership.ended == nil {
            let page = try query("getEntries", [("conversationId", conversation.description), ("afterSeq", String(membership.lastSeq)),
                                                 ("limit", "100")])
            for entry in page["entries"]?.array ?? [] {
                if let message = try apply(entry, to: &membership) { membership.unread.append(message) }
                membership.lastSeq = entry["seq"]?.integer ?? membership.lastSeq
                if membership.ended != nil { break reading }
            }
            guard page["hasMore"]?.bool == true else { break }
        }
        conversations[conversation] = membership
    }

    /// Verifies one entry's signature and applies it.
    func apply(_ entry: ChatValue, to membership: inout ChatMembership) throws -> Message? {
        guard let wrapper = entry["signedRequest"], let seq = entry["seq"]?.integer else {
            throw MLSClientError.invalidServerData("incomplete entry")
        }
        let request = try SignedRequest(wrapper: wrapper)
        let fromMe = request.actorDID == device.did.rawValue && request.actorDeviceID == device.deviceID
        let key = signerKey(request, entry: entry, fromMe: fromMe, group: membership.group)
        if let key {
            do { _ = try request.verified(publicKey: key) } catch {
                throw MLSClientError.invalidServerData("entry \(seq): the signature does not verify")
            }
        } else if seq > membership.joinedAt && Self.changesGroup(request.kind) {
            throw MLSClientError.invalidServerData("entry \(seq) is signed by a device without a leaf")
        }
        // Otherwise the signer holds no leaf, so this device knows no key of it: a participant without
        // leaves (declining, leaving, closing a direct conversation before joining) or an admin whose
        // devices hold none. The service verified it against the device's registered key, and such an
        // entry changes nothing this device decrypts or commits to.
        guard seq > membership.joinedAt else { return nil }
        switch request.kind {
        case .conversationClose:
            membership.ended = .closed(seq: seq)
            return nil
        case .resetActivation where !fromMe:
            membership.ended = .reset(seq: seq)
            return nil
        default:
            break
        }
        guard !fromMe else { return nil }
        switch request.kind {
        case .commitTransition, .leafRecoveryFulfillment, .leaveCommitFulfillment:
            guard let bytes = request.body["commit"]?["bytes"]?.bytes else { return nil }
            _ = try membership.group.process(try MLSMessage(decoding: bytes))
            guard membership.group.isActive else {
                membership.ended = .removed(seq: seq)
                return nil
            }
            // The same metadata, encrypted for the new epoch: read again (it is what this device
            // re-encrypts when it commits).
            if let snapshot = request.body["metadataSnapshot"] { try adopt(snapshot, in: &membership, newVersion: false) }
            return nil
        case .metadataTransition:
            // New metadata is written by the signer itself, with the key of its leaf.
            guard let snapshot = request.body["metadataSnapshot"], let proof = snapshot["authorProof"],
                  proof["authorDid"]?.text == request.actorDID, proof["authorDeviceId"]?.uuid == request.actorDeviceID,
                  proof["signaturePublicKey"]?.bytes == key else {
                throw MLSClientError.invalidServerData("entry \(seq): metadata whose author is not its signer")
            }
            try adopt(snapshot, in: &membership, newVersion: true)
            return nil
        case .applicationSend:
            guard let bytes = request.body["applicationMessage"]?["bytes"]?.bytes else { return nil }
            let (plaintext, _) = try membership.group.decrypt(try MLSMessage(decoding: bytes))
            let frame = try DAGCBOR.decode(plaintext)
            let body = frame["body"]?["message"]
            let text: String? = if case .text(let text)? = body?["text"] { text } else { nil }
            let attachment = body?["embed"]?["encryptedImage"].flatMap { ChatAttachment(embed: $0, frame: frame) }
            guard text != nil || attachment != nil else { return nil }
            return Message(seq: seq, senderDID: request.actorDID, senderDevice: request.actorDeviceID!, text: text ?? "",
                           attachment: attachment)
        default:
            return nil
        }
    }

    /// Kinds whose entries change the group or carry what members decrypt: their signer must hold a leaf.
    static func changesGroup(_ kind: SignedMutationKind) -> Bool {
        [.commitTransition, .leafRecoveryFulfillment, .leaveCommitFulfillment, .metadataTransition, .applicationSend].contains(kind)
    }

    /// The key `request` is signed with, if this device knows it: its own, a leaf's, or (for an
    /// acceptance) the key of the KeyPackage reserved for the accepting device.
    func signerKey(_ request: SignedRequest, entry: ChatValue, fromMe: Bool, group: Group) -> [UInt8]? {
        if fromMe { return device.publicKey }
        let identity = Array("\(request.actorDID)#\(request.actorDeviceID?.description ?? "")".utf8)
        if let key = group.members.first(where: { $0.credential == .basic(identity: identity) })?.signatureKey { return key }
        // An acceptance is signed by a device without a leaf yet: its key is the one its reserved
        // KeyPackage's leaf signs with (a device's requests and leaves share one key).
        if let wrapper = entry["recovery"]?["reservation"]?["keyPackage"]?["bytes"]?.bytes,
           case .keyPackage(let package)? = try? MLSMessage(decoding: wrapper).body, package.leafNode.credential == .basic(identity: identity) {
            return package.leafNode.signatureKey
        }
        return nil
    }

    /// Takes the metadata of `snapshot` (decrypted with the group as it is now), after checking it
    /// is the current one re-encrypted (`newVersion` false: same version, origin and author) or the
    /// next version, signed by its author's device, whose key is the one its author proof names.
    func adopt(_ snapshot: ChatValue, in membership: inout ChatMembership, newVersion: Bool) throws {
        guard let version = snapshot["metadataVersion"]?.integer, let origin = snapshot["originTransitionId"]?.uuid,
              let proof = snapshot["authorProof"], let author = proof["authorDid"]?.text, let authorDevice = proof["authorDeviceId"]?.uuid,
              let key = proof["signaturePublicKey"]?.bytes else {
            throw MLSClientError.invalidServerData("incomplete metadata snapshot")
        }
        if newVersion {
            guard version == membership.metadataVersion + 1, proof["originTransitionId"]?.uuid == origin else {
                throw MLSClientError.invalidServerData("metadata version \(version) does not follow \(membership.metadataVersion)")
            }
        } else if !membership.metadata.isEmpty {
            guard version == membership.metadataVersion, origin == membership.metadataOrigin, proof == membership.authorProof else {
                throw MLSClientError.invalidServerData("a commit changed the metadata it should only re-encrypt")
            }
        }
        let opened = try ChatMetadata.open(snapshot, group: membership.group)
        try ChatMetadata.verify(opened.plaintext, author: author, device: authorDevice, publicKey: key, version: version, origin: origin)
        membership.metadata = opened.plaintext
        membership.metadataVersion = version
        membership.metadataOrigin = origin
        membership.authorProof = proof
        membership.avatarBinding = snapshot["avatarBinding"]
        membership.title = opened.title
    }
}
