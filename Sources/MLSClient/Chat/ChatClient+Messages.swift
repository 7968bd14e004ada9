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
        let request = try seal(text, in: conversation, at: try coordinates(conversation))
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
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let messageID = ChatUUID.random()
        let aad = MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior)
        let frame = ChatValue.object([
            "protocol": .text("blue.catbird.chat.application"), "version": .integer(1), "messageId": .bytes(messageID.bytes),
            "context": prior.aadPriorContext, "body": .tagged("messageFrameVariant", ["message": .object(["text": .text(text)])]),
        ])
        let message = try membership.group.encrypt(DAGCBOR.encode(frame.dagCBOR(.signing)),
                                                   authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.applicationDomain, aad: aad))
        conversations[conversation] = membership
        let bytes = message.encoded()
        return SignedRequest.sign(body(.applicationSend, [
            "messageId": .uuid(messageID), "prior": prior.value, "aad": aad,
            "applicationMessage": .object(["framing": .text("mlsMessage"), "contentType": .text("privateMessageApplication"),
                                           "bytes": .bytes(bytes), "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))]),
            "blobBindings": .array([]),
        ]), kind: .applicationSend, key: device.key)
    }

    /// The messages of other devices received since the last call, reading the log first.
    public func read(_ conversation: ChatUUID) throws -> [Message] {
        try sync(conversation)
        defer { conversations[conversation]?.unread = [] }
        return conversations[conversation]?.unread ?? []
    }

    /// Reads the entries after the last one read: every entry's signature is verified against its
    /// signer's leaf key (which is the device's key) before use; commits are processed, messages
    /// decrypted and kept for `read`.
    public func sync(_ conversation: ChatUUID) throws {
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        while true {
            let page = try query("getEntries", [("conversationId", conversation.description), ("afterSeq", String(membership.lastSeq)),
                                                 ("limit", "100")])
            for entry in page["entries"]?.array ?? [] {
                if let message = try apply(entry, to: &membership) { membership.unread.append(message) }
                membership.lastSeq = entry["seq"]?.integer ?? membership.lastSeq
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
        // The signer's key: its leaf's (a member) or, for its own entries, this device's.
        let identity = Array("\(request.actorDID)#\(request.actorDeviceID?.description ?? "")".utf8)
        var key = fromMe ? device.publicKey : membership.group.members.first { $0.credential == .basic(identity: identity) }?.signatureKey
        if key == nil, let wrapper = entry["recovery"]?["reservation"]?["keyPackage"]?["bytes"]?.bytes,
           case .keyPackage(let package)? = try? MLSMessage(decoding: wrapper).body, package.leafNode.credential == .basic(identity: identity) {
            // An acceptance is signed by a device without a leaf yet: its key is the one its reserved
            // KeyPackage's leaf signs with (a device's requests and leaves share one key).
            key = package.leafNode.signatureKey
        }
        guard let key else {
            if seq <= membership.joinedAt { return nil }
            throw MLSClientError.invalidServerData("entry \(seq) is signed by a device without a leaf")
        }
        do { _ = try request.verified(publicKey: key) } catch {
            throw MLSClientError.invalidServerData("entry \(seq): the signature does not verify")
        }
        guard !fromMe, seq > membership.joinedAt else { return nil }
        switch request.kind {
        case .commitTransition, .leafRecoveryFulfillment:
            guard let bytes = request.body["commit"]?["bytes"]?.bytes else { return nil }
            _ = try membership.group.process(try MLSMessage(decoding: bytes))
            return nil
        case .applicationSend:
            guard let bytes = request.body["applicationMessage"]?["bytes"]?.bytes else { return nil }
            let (plaintext, _) = try membership.group.decrypt(try MLSMessage(decoding: bytes))
            let frame = try DAGCBOR.decode(plaintext)
            guard case .text(let text)? = frame["body"]?["message"]?["text"] else { return nil }
            return Message(seq: seq, senderDID: request.actorDID, senderDevice: request.actorDeviceID!, text: text)
        default:
            return nil
        }
    }
}
