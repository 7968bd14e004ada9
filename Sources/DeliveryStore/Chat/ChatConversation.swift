import ChatProtocol
import Foundation
import Store

/// A conversation's row: its kind, coordinates, the public MLS state the service follows and its
/// encrypted metadata snapshot.
public struct ChatConversation: Sendable {
    public var kind: String
    public var coordinates: ConversationCoordinates
    public var cipherSuite: UInt16
    public var publicState: [UInt8]
    /// `#metadataSnapshot`, canonical JSON.
    public var metadataSnapshot: [UInt8]
    public var lastSeq: Int64

    public init(kind: String, coordinates: ConversationCoordinates, cipherSuite: UInt16, publicState: [UInt8],
                metadataSnapshot: [UInt8], lastSeq: Int64) {
        self.kind = kind
        self.coordinates = coordinates
        self.cipherSuite = cipherSuite
        self.publicState = publicState
        self.metadataSnapshot = metadataSnapshot
        self.lastSeq = lastSeq
    }

    public var id: ChatUUID { coordinates.conversationID }
}

public struct ChatParticipant: Sendable, Equatable {
    public var did: String
    public var role: String
    public var status: String
    /// `#invitationProvenance`, canonical JSON; nil for the creator.
    public var provenance: [UInt8]?

    public init(did: String, role: String, status: String, provenance: [UInt8]?) {
        self.did = did
        self.role = role
        self.status = status
        self.provenance = provenance
    }
}

/// A current MLS leaf of a device, and the visibility interval it opened.
public struct ChatLeaf: Sendable, Equatable {
    public var did: String
    public var deviceID: ChatUUID
    public var leafIndex: UInt32
    public var origin: String
    public var joinKeyPackageRef: [UInt8]?
    public var intervalID: ChatUUID

    public init(did: String, deviceID: ChatUUID, leafIndex: UInt32, origin: String, joinKeyPackageRef: [UInt8]?, intervalID: ChatUUID) {
        self.did = did
        self.deviceID = deviceID
        self.leafIndex = leafIndex
        self.origin = origin
        self.joinKeyPackageRef = joinKeyPackageRef
        self.intervalID = intervalID
    }
}

/// One entry of a conversation's log (`#conversationEntry`): the signed request as canonical JSON,
/// the server fields of its variant, and the server's id, seq and time.
public struct ChatEntry: Sendable {
    public var conversationID: ChatUUID
    public var seq: Int64
    public var entryID: ChatUUID
    /// The `#conversationEntry` variant, e.g. `applicationEntry`.
    public var kind: String
    public var signedRequest: [UInt8]
    /// The variant's own fields (`{"recovery": …}`), canonical JSON of an object, or nil.
    public var serverFields: [UInt8]?
    public var requestDigest: [UInt8]
    public var receivedAt: Date

    public init(conversationID: ChatUUID, seq: Int64, entryID: ChatUUID, kind: String, signedRequest: [UInt8],
                serverFields: [UInt8]?, requestDigest: [UInt8], receivedAt: Date) {
        self.conversationID = conversationID
        self.seq = seq
        self.entryID = entryID
        self.kind = kind
        self.signedRequest = signedRequest
        self.serverFields = serverFields
        self.requestDigest = requestDigest
        self.receivedAt = receivedAt
    }
}

extension ChatTransaction {
    static func coordinates(from row: PGRow) throws -> ConversationCoordinates {
        ConversationCoordinates(
            conversationID: try row.chatUUID("conversation_id"), generation: UInt64(try row.int64("generation")),
            stateVersion: UInt64(try row.int64("state_version")), groupID: try row.bytes("group_id"),
            epoch: UInt64(try row.int64("epoch")), groupContextHash: try row.bytes("group_context_hash"),
            confirmationTag: try row.bytes("confirmation_tag"),
            lifecycle: ConversationCoordinates.Lifecycle(rawValue: try row.string("lifecycle")) ?? .superseded)
    }

    /// The conversation, with `lock` its row locked for update: every change to a conversation
    /// starts here, so changes to one conversation are serialized and compare-and-swap on its coordinates.
    public func conversation(_ id: ChatUUID, lock: Bool = false) throws -> ChatConversation? {
        let rows = try connection.query("""
            SELECT conversation_id, kind, generation, state_version, group_id, epoch, group_context_hash, confirmation_tag,
                   lifecycle, cipher_suite, public_state, metadata_snapshot, last_seq
            FROM chat_conversations WHERE conversation_id = $1\(lock ? " FOR UPDATE" : "")
            """, [id])
        guard let row = rows.first else { return nil }
        return ChatConversation(kind: try row.string("kind"), coordinates: try Self.coordinates(from: row),
                                cipherSuite: UInt16(truncatingIfNeeded: try row.int64("cipher_suite")),
                                publicState: try row.bytes("public_state"), metadataSnapshot: try row.bytes("metadata_snapshot"),
                                lastSeq: try row.int64("last_seq"))
    }

    /// `conversation(_:lock:)` for a change from `prior`: the conversation must exist and be at
    /// exactly `prior` (`StaleCoordinates` otherwise).
    public func lockConversation(at prior: ConversationCoordinates) throws -> ChatConversation {
        guard let conversation = try conversation(prior.conversationID, lock: true) else {
            throw ChatRefusal(.conversationNotFound, "no such conversation")
        }
        guard conversation.coordinates == prior else {
            throw ChatRefusal(.staleCoordinates, "the conversation is at other coordinates (stateVersion \(conversation.coordinates.stateVersion), epoch \(conversation.coordinates.epoch))")
        }
        return conversation
    }

    public func participants(_ conversation: ChatUUID) throws -> [ChatParticipant] {
        try connection.query("""
            SELECT user_did, role, status, provenance FROM chat_participants WHERE conversation_id = $1 ORDER BY user_did COLLATE "C"
            """, [conversation]).map { row in
            ChatParticipant(did: try row.string("user_did"), role: try row.string("role"), status: try row.string("status"),
                            provenance: try row.optionalBytes("provenance"))
        }
    }

    public func participant(_ conversation: ChatUUID, did: String) throws -> ChatParticipant? {
        try connection.query("SELECT user_did, role, status, provenance FROM chat_participants WHERE conversation_id = $1 AND user_did = $2",
                             [conversation, did]).first.map { row in
            ChatParticipant(did: try row.string("user_did"), role: try row.string("role"), status: try row.string("status"),
                            provenance: try row.optionalBytes("provenance"))
        }
    }

    /// Current leaves, by (DID bytes, device id bytes) as the contract orders them.
    public func leaves(_ conversation: ChatUUID) throws -> [ChatLeaf] {
        try connection.query("""
            SELECT user_did, device_id, leaf_index, leaf_origin, join_key_package_ref, interval_id FROM chat_leaves
            WHERE conversation_id = $1 ORDER BY user_did COLLATE "C", device_id
            """, [conversation]).map { row in
            ChatLeaf(did: try row.string("user_did"), deviceID: try row.chatUUID("device_id"),
                     leafIndex: UInt32(truncatingIfNeeded: try row.int64("leaf_index")), origin: try row.string("leaf_origin"),
                     joinKeyPackageRef: try row.optionalBytes("join_key_package_ref"), intervalID: try row.chatUUID("interval_id"))
        }
    }

    /// A device's current leaf in the conversation.
    public func leaf(_ conversation: ChatUUID, did: String, device: ChatUUID) throws -> ChatLeaf? {
        try leaves(conversation).first { $0.did == did && $0.deviceID == device }
    }

    /// A new conversation at epoch 0 with its creation entry (seq 1), the creator's genesis leaf
    /// and its interval. A direct conversation whose pair already has one is not created: the
    /// existing conversation's id comes back instead.
    public func create(_ conversation: ChatConversation, directPair: String?, participants: [ChatParticipant],
                       creatorLeaf: ChatLeaf, entry: ChatEntry) throws -> ChatUUID? {
        if let directPair {
            // One creation per pair at a time: the loser of a race finds the winner's conversation.
            try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["chat-direct " + directPair])
            let existing = try connection.query("SELECT conversation_id FROM chat_conversations WHERE direct_pair = $1 FOR SHARE",
                                                [directPair])
            if let row = existing.first { return try row.chatUUID("conversation_id") }
        }
        guard try self.conversation(conversation.id) == nil else {
            throw ChatRefusal(.conversationAlreadyExists, "a conversation with this id exists")
        }
        let c = conversation.coordinates
        // A racing creation of the same direct pair or group id fails on the unique indexes; the
        // caller retries and then finds the winner.
        try connection.execute("""
            INSERT INTO chat_conversations (conversation_id, kind, generation, state_version, group_id, epoch, group_context_hash,
                confirmation_tag, lifecycle, cipher_suite, public_state, metadata_snapshot, last_seq, direct_pair, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, $14)
            """, [c.conversationID, conversation.kind, Int64(c.generation), Int64(c.stateVersion), c.groupID, Int64(c.epoch),
                  c.groupContextHash, c.confirmationTag, c.lifecycle.rawValue, Int64(conversation.cipherSuite),
                  conversation.publicState, conversation.metadataSnapshot, directPair, now])
        for participant in participants {
            try connection.execute("""
                INSERT INTO chat_participants (conversation_id, user_did, role, status, provenance) VALUES ($1, $2, $3, $4, $5)
                """, [c.conversationID, participant.did, participant.role, participant.status, participant.provenance])
        }
        let seq = try append(entry)
        try addLeaf(conversation.id, creatorLeaf, startSeq: seq)
        return nil
    }

    /// Appends `entry` at the conversation's next seq (its row must be locked, or new) and returns it.
    @discardableResult
    public func append(_ entry: ChatEntry) throws -> Int64 {
        let seq = try connection.query(
            "UPDATE chat_conversations SET last_seq = last_seq + 1 WHERE conversation_id = $1 RETURNING last_seq",
            [entry.conversationID]).first!.int64("last_seq")
        try connection.execute("""
            INSERT INTO chat_entries (conversation_id, seq, entry_id, kind, signed_request, server_fields, request_digest, received_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """, [entry.conversationID, seq, entry.entryID, entry.kind, entry.signedRequest, entry.serverFields,
                  entry.requestDigest, entry.receivedAt])
        return seq
    }

    /// The seq the next appended entry of a locked conversation will get.
    public func nextSeq(_ conversation: ChatConversation) -> Int64 { conversation.lastSeq + 1 }

    /// A device gets a leaf, and with it a new interval from `startSeq`.
    public func addLeaf(_ conversation: ChatUUID, _ leaf: ChatLeaf, startSeq: Int64) throws {
        try connection.execute("""
            INSERT INTO chat_leaves (conversation_id, user_did, device_id, leaf_index, leaf_origin, join_key_package_ref, interval_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [conversation, leaf.did, leaf.deviceID, Int64(leaf.leafIndex), leaf.origin, leaf.joinKeyPackageRef, leaf.intervalID])
        try connection.execute("""
            INSERT INTO chat_intervals (interval_id, conversation_id, user_did, device_id, start_seq) VALUES ($1, $2, $3, $4, $5)
            """, [leaf.intervalID, conversation, leaf.did, leaf.deviceID, startSeq])
    }

    /// Moves a locked conversation to `next` (and its public state and snapshot, when given).
    public func advance(_ conversation: ChatUUID, to next: ConversationCoordinates, publicState: [UInt8]? = nil,
                        metadataSnapshot: [UInt8]? = nil) throws {
        try connection.execute("""
            UPDATE chat_conversations SET generation = $2, state_version = $3, group_id = $4, epoch = $5, group_context_hash = $6,
                confirmation_tag = $7, lifecycle = $8, public_state = coalesce($9, public_state),
                metadata_snapshot = coalesce($10, metadata_snapshot)
            WHERE conversation_id = $1
            """, [conversation, Int64(next.generation), Int64(next.stateVersion), next.groupID, Int64(next.epoch),
                  next.groupContextHash, next.confirmationTag, next.lifecycle.rawValue, publicState, metadataSnapshot])
    }

    /// A pending participant becomes active (acceptConversation).
    public func activate(_ conversation: ChatUUID, did: String) throws {
        try connection.execute("UPDATE chat_participants SET status = 'active' WHERE conversation_id = $1 AND user_did = $2",
                               [conversation, did])
    }

    /// Records a metadata snapshot's nonce for (conversation, generation, epoch); a second use of
    /// the nonce there is refused (`MetadataNonceReuse`).
    public func recordMetadataNonce(_ conversation: ChatUUID, generation: UInt64, epoch: UInt64, nonce: [UInt8]) throws {
        let inserted = try connection.execute("""
            INSERT INTO chat_metadata_nonces (conversation_id, generation, epoch, nonce) VALUES ($1, $2, $3, $4)
            ON CONFLICT DO NOTHING
            """, [conversation, Int64(generation), Int64(epoch), nonce])
        guard inserted == 1 else { throw ChatRefusal(.metadataNonceReuse, "this metadata nonce was used at these coordinates") }
    }

    // MARK: Reading

    /// Conversations a DID takes part in (pending or active), by id, after `after`.
    public func conversationIDs(of did: String, after: ChatUUID?, limit: Int) throws -> [ChatUUID] {
        try connection.query("""
            SELECT p.conversation_id FROM chat_participants p WHERE p.user_did = $1 AND ($2::bytea IS NULL OR p.conversation_id > $2)
            ORDER BY p.conversation_id LIMIT $3
            """, [did, after, Int64(limit)]).map { try $0.chatUUID("conversation_id") }
    }

    /// The seq intervals a device may read in a conversation, oldest first.
    public func intervals(_ conversation: ChatUUID, did: String, device: ChatUUID) throws -> [ClosedRange<Int64>] {
        try connection.query("""
            SELECT start_seq, coalesce(end_seq, 9007199254740991) AS end_seq FROM chat_intervals
            WHERE conversation_id = $1 AND user_did = $2 AND device_id = $3 ORDER BY start_seq
            """, [conversation, did, device]).map { try $0.int64("start_seq")...$0.int64("end_seq") }
    }

    /// Entries after `afterSeq` that fall in `intervals`, at most `limit`.
    public func entries(_ conversation: ChatUUID, afterSeq: Int64, intervals: [ClosedRange<Int64>], limit: Int) throws -> [ChatEntry] {
        guard !intervals.isEmpty else { return [] }
        let starts = PGArray(intervals.map(\.lowerBound)), ends = PGArray(intervals.map(\.upperBound))
        return try connection.query("""
            SELECT e.seq, e.entry_id, e.kind, e.signed_request, e.server_fields, e.request_digest, e.received_at
            FROM chat_entries e
            WHERE e.conversation_id = $1 AND e.seq > $2
              AND EXISTS (SELECT 1 FROM unnest($3::bigint[], $4::bigint[]) AS i(s, f) WHERE e.seq BETWEEN i.s AND i.f)
            ORDER BY e.seq LIMIT $5
            """, [conversation, afterSeq, starts, ends, Int64(limit)]).map { row in
            ChatEntry(conversationID: conversation, seq: try row.int64("seq"), entryID: try row.chatUUID("entry_id"),
                      kind: try row.string("kind"), signedRequest: try row.bytes("signed_request"),
                      serverFields: try row.optionalBytes("server_fields"), requestDigest: try row.bytes("request_digest"),
                      receivedAt: try row.date("received_at"))
        }
    }
}
