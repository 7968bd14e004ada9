import ChatProtocol
import Foundation
import Store

/// A chat sendMessage for `appendChatMessages`: what the service verified of it (the signed
/// request, its digest and signature, the device that signed) and what its batch needs to answer.
public struct ChatBatchedMessage: Sendable {
    public var prior: ConversationCoordinates
    public var actorDID: String
    public var deviceID: ChatUUID
    public var keyID: String
    public var authGeneration: Int64
    public var messageID: ChatUUID
    public var requestDigest: [UInt8]
    public var signature: [UInt8]
    public var signedAt: Date
    /// The signed request as canonical JSON (the entry's `signedRequest`).
    public var signedRequest: [UInt8]
    /// The token to record in the batch's transaction; nil when the caller recorded it.
    public var replay: ReplayRecord?

    public init(prior: ConversationCoordinates, actorDID: String, deviceID: ChatUUID, keyID: String, authGeneration: Int64,
                messageID: ChatUUID, requestDigest: [UInt8], signature: [UInt8], signedAt: Date, signedRequest: [UInt8],
                replay: ReplayRecord?) {
        self.prior = prior
        self.actorDID = actorDID
        self.deviceID = deviceID
        self.keyID = keyID
        self.authGeneration = authGeneration
        self.messageID = messageID
        self.requestDigest = requestDigest
        self.signature = signature
        self.signedAt = signedAt
        self.signedRequest = signedRequest
        self.replay = replay
    }
}

/// What a batch did with one message.
public enum ChatBatchedOutcome: Sendable {
    /// The answer (200 and the entry, or a stored refusal for a repeat of a spent id), committed.
    case answered(status: Int, body: [UInt8])
    /// Refused, nothing stored (the token is recorded nonetheless).
    case refused(ChatRefusal)
    /// The batch could not judge it (a repeated id or token raced it, or the batch failed): run it alone.
    case alone
}

extension DeliveryStore {
    /// Appends many chat messages in one transaction, one round trip, one WAL flush: group commit
    /// for the chat contract's sendMessage, with exactly the checks of the unbatched path
    /// (SendChatMessage) in the same order: an exact repeat of a completed message gets its stored
    /// answer, another request with its id `IdempotencyConflict`; `signedAt` fresh; the device
    /// registered, active, at the signed generation and key; the conversation at exactly the signed
    /// coordinates (a stale attempt spends its id); the device a leaf. Refusals are per message.
    /// Two messages with one (actor, messageId) or one token must not share a batch.
    ///
    /// The batch assumes no message races another with its id or token: a unique violation on either
    /// rolls it back, and every message of it is answered `.alone` (its caller runs it by itself,
    /// under the operation's lock). A database outage fails the batch's messages with it.
    public func appendChatMessages(_ batch: [ChatBatchedMessage]) -> [Result<ChatBatchedOutcome, DeliveryStoreError>] {
        guard !batch.isEmpty else { return [] }
        let conversations = PGArray(Array(Set(batch.map(\.prior.conversationID.bytes))).sorted { $0.lexicographicallyPrecedes($1) })
        let responsePrefixes = batch.map { message -> [UInt8] in
            // {"entry":{"conversationId":…,"entryId":…,"receivedAt":" – the rest is written by the statement.
            Array("{\"entry\":{\"conversationId\":\"\(message.prior.conversationID)\",\"entryId\":\"".utf8)
        }
        let entryIDs = batch.map { _ in ChatUUID.random() }
        let eventSuffixes = batch.map { message -> [UInt8] in
            let full = DAGCBOR.encode(ChatValue.tagged("messageAvailableEvent", [
                "conversationId": .uuid(message.prior.conversationID), "seq": .integer(0),
            ]).dagCBOR(.data))
            // A3 63 's' 'e' 'q' 00: the map's head, the "seq" key and a zero; the rest follows the seq.
            return Array(full.dropFirst(6))
        }
        let staleResponses = batch.map { message -> [UInt8] in
            ChatJSON.render(.object(["error": .text(ChatErrorCode.staleCoordinates.rawValue),
                                     "message": .text("the conversation is at other coordinates")]))
        }
        let parameters: [(any PGBindable)?] = [
            PGArray(batch.map(\.prior.conversationID.bytes)), PGArray(batch.map(\.actorDID)), PGArray(batch.map(\.deviceID.bytes)),
            PGArray(batch.map(\.keyID)), PGArray(batch.map(\.authGeneration)), PGArray(batch.map(\.messageID.bytes)),
            PGArray(batch.map(\.requestDigest)), PGArray(batch.map(\.signature)),
            PGArray(batch.map { Int64($0.prior.generation) }), PGArray(batch.map { Int64($0.prior.stateVersion) }),
            PGArray(batch.map(\.prior.groupID)), PGArray(batch.map { Int64($0.prior.epoch) }),
            PGArray(batch.map(\.prior.groupContextHash)), PGArray(batch.map(\.prior.confirmationTag)),
            PGArray(batch.map(\.signedRequest)), PGArray(entryIDs.map(\.bytes)),
            PGArray(zip(responsePrefixes, entryIDs).map { $0 + Array("\($1)\",\"receivedAt\":\"".utf8) }),
            PGArray(staleResponses), PGArray(eventSuffixes),
            PGArray(batch.map { $0.replay?.iss }), PGArray(batch.map { $0.replay?.jti }), PGArray(batch.map { $0.replay?.until }),
            PGArray(batch.map(\.signedAt)),
        ]
        let statements = [PGStatement(ChatMessageBatchSQL.lock, [conversations]),
                          PGStatement(ChatMessageBatchSQL.append(pushing: configuration.pushEnabled), parameters)]
        let announce = PGStatement(ChatMessageBatchSQL.announce, [])
        let committed: PipelinedCommit
        do {
            committed = try database.pipelinedTransaction(statements, afterCommit: [announce])
        } catch .uniqueViolation {
            return batch.map { _ in .success(.alone) }
        } catch {
            return batch.map { _ in .failure(.database(error)) }
        }
        if committed.afterCommitFailure != nil { _ = try? database.query(announce.sql, announce.parameters) }
        let rows = committed.rows[1]
        guard rows.count == batch.count else { return batch.map { _ in .success(.alone) } }
        return rows.map { row in
            do {
                return .success(try ChatMessageBatchSQL.outcome(row))
            } catch {
                return .success(.alone)
            }
        }
    }
}
