import DeliveryStore
import MLS

/// `blue.catbird.mls.sendMessage`: stores an application message (a PrivateMessage) after checking
/// its plaintext header against the conversation (API.md, Semantics; MLS.md item 4).
enum SendMessage {
    struct Input: Codable, Sendable {
        var convoId: String
        var msgId: String
        var ciphertext: ATBytes
        var epoch: Int64
        var paddedSize: Int?
        var idempotencyKey: String?
    }

    struct Output: Codable, Sendable {
        var messageId: String
        var receivedAt: String
        var seq: Int64
        var epoch: Int64
    }

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        // base64 grows 4/3; leave room for the JSON around the ciphertext.
        let maxBody = env.limits.maxCiphertextBytes / 3 * 4 + 64 << 10
        return XRPCMethod("blue.catbird.mls.sendMessage", .procedure, maxBodySize: maxBody) { context in
            let caller = try context.verifiedCaller
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            let msgID = try InputValidation.messageID(input.msgId)
            let epoch = try InputValidation.epoch(input.epoch)
            guard input.ciphertext.bytes.count <= env.limits.maxCiphertextBytes else {
                throw XRPCError(413, "MessageTooLarge", "ciphertext exceeds \(env.limits.maxCiphertextBytes) bytes")
            }
            if let padded = input.paddedSize, padded < 0 || padded > env.limits.maxCiphertextBytes {
                throw XRPCError.invalidRequest("paddedSize out of range")
            }
            try checkHeader(input.ciphertext.bytes, convoID: convoID, epoch: epoch)
            let message = NewMessage(convoID: convoID, msgID: msgID, epoch: epoch, senderDID: caller.rawValue,
                                     content: .ciphertext(input.ciphertext.bytes), paddedSize: input.paddedSize)
            return try env.idempotent(context, key: input.idempotencyKey) { tx in
                let stored = try tx.appendMessage(message)
                return Output(messageId: msgID, receivedAt: Timestamp.rfc3339(stored.receivedAt), seq: stored.seq,
                              epoch: stored.epoch)
            }
        }
    }

    /// The PrivateMessage's group_id and epoch must be this conversation's, and the content an
    /// application message; the store then checks the epoch is current, inside its transaction.
    static func checkHeader(_ bytes: [UInt8], convoID: String, epoch: Int64) throws(XRPCError) {
        let message: MLSMessage
        do { message = try MLSMessage(decoding: bytes) } catch {
            throw XRPCError(400, "InvalidMessage", "ciphertext is not an MLSMessage")
        }
        guard case .privateMessage(let privateMessage) = message.body else {
            throw XRPCError(400, "InvalidMessage", "application messages must be PrivateMessage")
        }
        guard Hex.encode(privateMessage.groupID) == convoID else {
            throw XRPCError(400, "InvalidMessage", "the message is for another group")
        }
        guard privateMessage.contentType == .application else {
            throw XRPCError(400, "InvalidMessage", "sendMessage carries application messages only")
        }
        guard Int64(clamping: privateMessage.epoch) == epoch else {
            throw XRPCError(400, "InvalidMessage", "the message's epoch differs from the request's epoch")
        }
    }
}
