import Basics
import Dispatch
import DeliveryStore
import Lexicon
import MLS

/// `blue.catbird.mls.sendMessage`: stores an application message (a PrivateMessage) after checking
/// its plaintext header against the conversation (API.md, Semantics; MLS.md item 4).
///
/// Thin mode (API.md, "Thin delivery-service mode"): instead of the ciphertext the client sends
/// its SHA-256 and size, keeps the bytes in its members' own storage, and gets back the fan-out
/// list. With no PrivateMessage to parse, the service cannot check group_id or content type there;
/// it still checks membership and the epoch, and orders the message with a seq.
enum SendMessage {
    typealias Input = SendMessageInput
    typealias Output = SendMessageOutput
    typealias RecipientView = Lexicon.RecipientView

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        // base64 grows 4/3; leave room for the JSON around the ciphertext.
        let maxBody = env.limits.maxCiphertextBytes / 3 * 4 + 64 << 10
        var method = XRPCMethod("blue.catbird.mls.sendMessage", .procedure, maxBodySize: maxBody) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            let msgID = try InputValidation.messageID(input.msgId)
            let epoch = try InputValidation.epoch(input.epoch)
            let content = try content(of: input, limits: env.limits)
            let maxPadded = max(env.limits.maxCiphertextBytes, env.limits.maxExternalMessageBytes)
            if let padded = input.paddedSize, padded < 0 || padded > maxPadded {
                throw XRPCError.invalidRequest("paddedSize out of range")
            }
            if case .ciphertext(let bytes) = content {
                try checkHeader(bytes, convoID: convoID, epoch: epoch)
            }
            let attachments = try attachmentIDs(input.attachments)
            let message = NewMessage(convoID: convoID, msgID: msgID, epoch: epoch, senderDID: caller,
                                     content: content, paddedSize: input.paddedSize)
            let replay = context.deferredReplay
            let record = replay?.record
            if case .ciphertext = content, attachments.isEmpty, input.idempotencyKey == nil {
                // The common case: group-committed with concurrent messages (MessageBatcher). The
                // end of its batch answers; the worker goes on to other requests, or runs the lane's
                // batches while it has any.
                return .pending(XRPCPendingOutput { complete in
                    env.messages.append(BatchedMessage(message, replay: record), lead: context.runBlocking) { outcome in
                        let output = outcome.result.mapError { $0 as any Error }.map { stored -> XRPCOutput in
                            .json(Output(messageId: msgID, receivedAt: Timestamp.rfc3339(stored.receivedAt), seq: stored.seq,
                                         epoch: stored.epoch))
                        }
                        guard outcome.replayRecorded || replay == nil else {
                            // The token is then recorded on the answer's way back (ServiceAuth), which
                            // waits on the database: not on the lane's thread, whose next batch (and,
                            // with the database gone, every other failed message's record) would
                            // wait behind it.
                            DispatchQueue.global().async { complete(output) }
                            return
                        }
                        replay?.settle()
                        complete(output)
                    }
                })
            }
            // Idempotency keys, attachments and thin mode write in a transaction of their own.
            return try context.blocking {
                try store(message, input: input, content: content, attachments: attachments, context: context, env: env)
            }
        }
        method.recordsReplayInHandler = true
        // The common case blocks on nothing before its batch (the token's key is cached, or the
        // request is set aside for it): it runs on the I/O thread, and its batch on a worker.
        method.startsOnIOThread = true
        return method
    }

    /// The message in its own transaction, with its idempotency key, attachments or thin mode's
    /// recipients; blocks.
    private static func store(_ message: NewMessage, input: Input, content: MessageContent, attachments: [String],
                              context: AuthenticatedContext, env: MethodEnvironment) throws -> XRPCOutput {
        let convoID = message.convoID, caller = context.caller, msgID = message.msgID
        let replay = context.deferredReplay
        let record = replay?.record
        var recorded = false
        let output = try env.idempotent(context, key: input.idempotencyKey) { tx in
            recorded = false
            if let record { try tx.recordReplay(record) }
            let stored = try tx.appendMessage(message)
            // A repeated msgId returns the first result, whose links were made the first time.
            if !stored.duplicate { try tx.attachBlobs(attachments, convoID: convoID, seq: stored.seq) }
            let receivedAt = Timestamp.rfc3339(stored.receivedAt)
            var output = Output(messageId: msgID, receivedAt: receivedAt, seq: stored.seq, epoch: stored.epoch)
            if case .external = content {
                // Read in the same transaction, under the conversation's row lock: exactly the
                // members at the moment the message took its seq.
                output.serverTime = receivedAt
                output.recipients = try tx.recipients(convoID: convoID, excluding: caller).map {
                    RecipientView(did: $0.did, storage: $0.storage.map(StorageProviderView.init))
                }
            }
            recorded = record != nil
            return output
        }
        // The token committed with the message (a repeated idempotency key runs nothing: the
        // router then records the token alone).
        if recorded { replay?.settle() }
        return output
    }

    /// At most `maxAttachments` well-formed blob ids, no duplicates; whether each is a blob of the
    /// conversation is checked in the message's transaction (400 InvalidAttachment).
    static func attachmentIDs(_ ids: [String]?) throws(XRPCError) -> [String] {
        guard let ids else { return [] }
        guard ids.count <= maxAttachments else { throw XRPCError(400, .invalidAttachment, "at most \(maxAttachments) attachments") }
        guard ids.allSatisfy(BlobID.isWellFormed) else { throw XRPCError(400, .invalidAttachment, "malformed blob id") }
        guard Set(ids).count == ids.count else { throw XRPCError(400, .invalidAttachment, "an attachment is listed twice") }
        return ids
    }

    static let maxAttachments = 16

    /// Exactly one of `ciphertext` or `hash` + `size`: the stored bytes, or thin mode's declared
    /// SHA-256 (64 hex digits) and size (1 … the thin-mode maximum).
    static func content(of input: Input, limits: ServiceLimits) throws(XRPCError) -> MessageContent {
        switch (input.ciphertext, input.hash, input.size) {
        case (let ciphertext?, nil, nil):
            guard ciphertext.bytes.count <= limits.maxCiphertextBytes else {
                throw XRPCError(413, .messageTooLarge, "ciphertext exceeds \(limits.maxCiphertextBytes) bytes")
            }
            return .ciphertext(ciphertext.bytes)
        case (nil, let hash?, let size?):
            guard hash.utf8.count == 64, let digest = Hex.decode(hash) else {
                throw .invalidRequest("hash must be the 64 hex digits of a SHA-256")
            }
            guard size >= 1 else { throw .invalidRequest("size must be at least 1") }
            guard size <= limits.maxExternalMessageBytes else {
                throw XRPCError(413, .messageTooLarge, "size exceeds \(limits.maxExternalMessageBytes) bytes")
            }
            return .external(sha256: digest, size: size)
        case (nil, nil, nil):
            throw .invalidRequest("either ciphertext or hash and size is required")
        case (nil, _, _):
            throw .invalidRequest("thin mode needs both hash and size")
        default:
            throw .invalidRequest("send either ciphertext or hash and size, not both")
        }
    }

    /// The PrivateMessage's group_id and epoch must be this conversation's, and the content an
    /// application message; the store then checks the epoch is current, inside its transaction.
    static func checkHeader(_ bytes: [UInt8], convoID: String, epoch: Int64) throws(XRPCError) {
        let message: MLSMessage
        do { message = try MLSMessage(decoding: bytes) } catch {
            throw XRPCError(400, .invalidMessage, "ciphertext is not an MLSMessage")
        }
        guard case .privateMessage(let privateMessage) = message.body else {
            throw XRPCError(400, .invalidMessage, "application messages must be PrivateMessage")
        }
        guard Hex.encode(privateMessage.groupID) == convoID else {
            throw XRPCError(400, .invalidMessage, "the message is for another group")
        }
        guard privateMessage.contentType == .application else {
            throw XRPCError(400, .invalidMessage, "sendMessage carries application messages only")
        }
        guard Int64(clamping: privateMessage.epoch) == epoch else {
            throw XRPCError(400, .invalidMessage, "the message's epoch differs from the request's epoch")
        }
    }
}
