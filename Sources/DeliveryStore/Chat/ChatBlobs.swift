import ChatProtocol
import Foundation
import Store

/// The chat contract's blobs in the store (docs/chat.md "Blobs"). Every change to one account's
/// blobs that can change its usage takes the account's blob lock (`BlobLock.owner`, the one v1's
/// uploads take), so the quota both contracts share is checked against one total; every change to
/// one blob locks its row first. Times are the service's clock, passed in as `now`.
extension ChatTransaction {
    /// An upload ticket lives this long (defs `blobUploadView`: 5 minutes).
    public static let blobTicketLifetime: TimeInterval = 300
    /// An upload nothing binds is deleted after this (CHAT.md §2: 1 hour).
    public static let unboundBlobLifetime: TimeInterval = 3600
    /// A claimed upload that neither finished nor failed (a crash) is ended after this; longer than
    /// any body may stream (BODY_STREAM_TIMEOUT).
    public static let blobUploadWindow: TimeInterval = 3600
    /// The largest ciphertext (defs `blobUploadPreparationBody.ciphertextSize`: 10 MiB).
    public static let maxBlobSize: Int64 = 10_485_760
    /// The quota the contract tells the app (defs `blobUsageView.quotaBytes`, a constant).
    public static let contractBlobQuota: Int64 = 524_288_000
    /// At most this many blobs of one account reserved, streaming or unbound (`liveUnboundCount` ≤ 100).
    public static let maxLiveUnboundBlobs: Int64 = 100

    /// The blob's row, locked for update with `lock`.
    public func blob(_ id: ChatUUID, lock: Bool = false) throws -> ChatBlob? {
        try connection.query("SELECT \(ChatBlob.columns) FROM chat_blobs WHERE blob_id = $1\(lock ? " FOR UPDATE" : "")", [id])
            .first.map(ChatBlob.init(row:))
    }

    /// `did`'s storage at `now`: v1's blobs and the live chat blobs (see `ChatBlobUsage`).
    public func blobUsage(of did: String, now: Date) throws -> ChatBlobUsage {
        let row = try connection.query("""
            SELECT v.used + c.used AS used, c.reserved, v.stored + c.stored AS stored, c.unbound
            FROM (SELECT coalesce(sum(size), 0)::bigint AS used, count(*) AS stored FROM blobs WHERE owner_did = $1) v,
                 (SELECT coalesce(sum(size) FILTER (WHERE status IN ('uploaded', 'bound')), 0)::bigint AS used,
                         coalesce(sum(size) FILTER (WHERE status IN ('reserved', 'uploading')), 0)::bigint AS reserved,
                         count(*) FILTER (WHERE status IN ('uploaded', 'bound')) AS stored,
                         count(*) FILTER (WHERE status IN ('reserved', 'uploading', 'uploaded')) AS unbound
                  FROM chat_blobs WHERE \(ChatBlobSQL.live(owner: "$1", now: "$2"))) c
            """, [did, now]).first!
        return ChatBlobUsage(usedBytes: try row.int64("used"), reservedBytes: try row.int64("reserved"),
                             blobCount: try row.int64("stored"), liveUnboundCount: try row.int64("unbound"))
    }

    /// Records a prepared upload (status `reserved`, its ticket's hash): `BlobAlreadyExists` for an
    /// id ever used, `BlobQuotaExceeded` when the account's bytes, reserved bytes and this blob
    /// would pass `quota`, or it already has `maxLiveUnboundBlobs` blobs not bound.
    public func reserveBlob(_ blob: ChatBlob, ticketHash: [UInt8], quota: Int64, now: Date) throws {
        try connection.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", [BlobLock.owner, blob.ownerDID])
        let used = ChatRefusal(.blobAlreadyExists, "this blob id was used before")
        guard try self.blob(blob.blobID) == nil else { throw used }
        let usage = try blobUsage(of: blob.ownerDID, now: now)
        guard usage.liveUnboundCount < Self.maxLiveUnboundBlobs else {
            throw ChatRefusal(.blobQuotaExceeded, "at most \(Self.maxLiveUnboundBlobs) uploads may wait unbound")
        }
        guard usage.usedBytes + usage.reservedBytes + blob.size <= quota else {
            throw ChatRefusal(.blobQuotaExceeded, "\(usage.usedBytes + usage.reservedBytes) of \(quota) bytes are used or reserved")
        }
        let inserted = try connection.execute("""
            INSERT INTO chat_blobs (blob_id, owner_did, owner_device_id, conversation_id, purpose, sha256, size, media_type,
                plaintext_size, status, ticket_hash, ticket_expires_at, expires_at, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'reserved', $10, $11, $11, $12) ON CONFLICT (blob_id) DO NOTHING
            """, [blob.blobID, blob.ownerDID, blob.ownerDeviceID, blob.conversationID, blob.purpose, blob.sha256, blob.size,
                  blob.mediaType, blob.plaintextSize, ticketHash, blob.ticketExpiresAt, now])
        // Another account's preparation of the same id, committed meanwhile.
        guard inserted == 1 else { throw used }
    }

    /// A new ticket for a reservation whose ticket was not used and has not expired (the same
    /// prepareBlobUpload again: the earlier ticket stops working). nil when there is none.
    public func reissueTicket(_ id: ChatUUID, owner: String, ticketHash: [UInt8], now: Date) throws -> ChatBlob? {
        guard let blob = try blob(id, lock: true), blob.ownerDID == owner, blob.status == .reserved,
              blob.ticketExpiresAt > now else { return nil }
        try connection.execute("UPDATE chat_blobs SET ticket_hash = $2 WHERE blob_id = $1", [id, ticketHash])
        return blob
    }

    /// What presenting an upload ticket did.
    public enum TicketClaim: Sendable {
        /// The ticket is spent and the blob is `uploading`.
        case claimed(ChatBlob)
        /// The ticket had expired; its reservation is ended now (to be committed before refusing).
        case expired
    }

    /// Uses the ticket with this hash for an upload by `did`'s device `device` (once: the hash is
    /// cleared). `UploadTicketNotFound` for a ticket never issued, already used, or another's.
    public func claimUpload(ticketHash: [UInt8], did: String, device: ChatUUID, now: Date) throws -> TicketClaim {
        guard let blob = try connection.query("SELECT \(ChatBlob.columns) FROM chat_blobs WHERE ticket_hash = $1 FOR UPDATE",
                                              [ticketHash]).first.map(ChatBlob.init(row:)),
              blob.ownerDID == did, blob.ownerDeviceID == device, blob.status == .reserved else {
            throw ChatRefusal(.uploadTicketNotFound, "no unused upload ticket of this device matches")
        }
        guard blob.ticketExpiresAt > now else {
            try end(blob.blobID, now: now)
            return .expired
        }
        try connection.execute("""
            UPDATE chat_blobs SET status = 'uploading', ticket_hash = NULL, expires_at = $2 WHERE blob_id = $1
            """, [blob.blobID, now.addingTimeInterval(Self.blobUploadWindow)])
        var claimed = blob
        claimed.status = .uploading
        return .claimed(claimed)
    }

    /// The upload's bytes are in place: the blob is `uploaded` and lives `unboundBlobLifetime`
    /// unless something binds it. `BlobConflict` when it was ended (deleted, or its window
    /// passed) while the bytes streamed. Takes the content's lock, under which `place` moves the
    /// file, as v1's uploads do (`DeliveryTransaction.insertBlob`).
    public func completeUpload(_ id: ChatUUID, now: Date, place: () throws -> Void) throws -> ChatBlob {
        guard var blob = try blob(id, lock: true), blob.status == .uploading, blob.isLive(at: now) else {
            throw ChatRefusal(.blobConflict, "the upload was deleted or expired while it streamed")
        }
        try connection.execute("SELECT pg_advisory_xact_lock($1, $2)", [BlobLock.content, BlobLock.key(blob.sha256)])
        try place()
        blob.status = .uploaded
        blob.uploadedAt = now
        blob.expiresAt = now.addingTimeInterval(Self.unboundBlobLifetime)
        try connection.execute("UPDATE chat_blobs SET status = 'uploaded', uploaded_at = $2, expires_at = $3 WHERE blob_id = $1",
                               [id, now, blob.expiresAt])
        return blob
    }

    /// Ends a blob (a failed upload, a deletion, an expiry): its quota is returned and its id stays
    /// spent. Returns its content hash when it had stored bytes, which may now be unused (the
    /// caller removes the file after commit, `BlobReclaimer`), nil otherwise.
    @discardableResult
    public func end(_ id: ChatUUID, now: Date) throws -> [UInt8]? {
        guard let blob = try blob(id, lock: true), blob.status != .ended else { return nil }
        try connection.execute("""
            UPDATE chat_blobs SET status = 'ended', ticket_hash = NULL, expires_at = NULL, ended_at = $2 WHERE blob_id = $1
            """, [id, now])
        return blob.status == .uploaded || blob.status == .bound ? blob.sha256 : nil
    }

    /// deleteBlob: one of `did`'s blobs that nothing bound (`BlobNotFound` for none live, `BlobBound`).
    public func deleteBlob(_ id: ChatUUID, owner did: String, now: Date) throws -> [UInt8]? {
        guard let blob = try blob(id, lock: true), blob.ownerDID == did, blob.isLive(at: now) else {
            throw ChatRefusal(.blobNotFound, "no blob of this account with this id")
        }
        guard blob.status != .bound else { throw ChatRefusal(.blobBound, "a message or the conversation's metadata binds this blob") }
        return try end(id, now: now)
    }

    /// The uploaded, unbound blob `binding` names, locked: one of `did`'s, live, in `conversation`,
    /// with exactly the binding's purpose, hash and size. `notFound` when `did` has no such live
    /// upload; `conflict` when the blob exists but another conversation, purpose, hash or size, or
    /// an earlier binding, stands in the way.
    func bindable(_ binding: ChatBlobBinding, conversation: ChatUUID, did: String, now: Date,
                  notFound: ChatErrorCode, conflict: ChatErrorCode) throws -> ChatBlob {
        guard let blob = try blob(binding.blobID, lock: true), blob.ownerDID == did, blob.isLive(at: now),
              blob.status == .uploaded || blob.status == .bound else {
            throw ChatRefusal(notFound, "no uploaded blob of this account has id \(binding.blobID)")
        }
        guard blob.status == .uploaded else { throw ChatRefusal(conflict, "the blob is bound already") }
        guard blob.conversationID == conversation, blob.purpose == binding.purpose, blob.sha256 == binding.sha256,
              blob.size == binding.size else {
            throw ChatRefusal(conflict, "the binding does not name the blob as it was prepared (conversation, purpose, hash and size)")
        }
        return blob
    }

    /// sendMessage's `blobBindings`: binds an uploaded attachment of the sender to the entry at
    /// `seq` (`BlobNotFound`, `BlobBindingConflict`). A bound attachment lives with its entry, and
    /// only devices whose interval covers `seq` may read it.
    public func bindAttachment(_ binding: ChatBlobBinding, conversation: ChatUUID, seq: Int64, did: String, now: Date) throws {
        guard binding.purpose == "attachment" else { throw ChatRefusal(.blobBindingConflict, "a message binds attachments only") }
        _ = try bindable(binding, conversation: conversation, did: did, now: now,
                         notFound: .blobNotFound, conflict: .blobBindingConflict)
        try connection.execute("UPDATE chat_blobs SET status = 'bound', bound_seq = $2, expires_at = NULL WHERE blob_id = $1",
                               [binding.blobID, seq])
    }

    /// A metadata snapshot of `conversation` at `metadataVersion` is stored (a creation, a commit
    /// or a metadata transition): `avatar` is its `avatarBinding`. The conversation's avatar is then
    /// exactly that blob: one the conversation's snapshot already binds is carried to the new
    /// version; otherwise it must be an uploaded, unbound `metadata` blob of `did` (the signer) in
    /// this conversation with the binding's hash and size. An avatar the new snapshot no longer
    /// names stops being readable now and is deleted by the next maintenance pass. Refusals are
    /// `InvalidMetadataSnapshot`, the code submitTransition and createConversation declare.
    /// Call it with the conversation's row locked, in the transaction that stores the snapshot.
    public func setMetadataAvatar(_ avatar: ChatBlobBinding?, conversation: ChatUUID, metadataVersion: UInt64, did: String,
                                  now: Date) throws {
        let current = try connection.query("""
            SELECT \(ChatBlob.columns) FROM chat_blobs WHERE conversation_id = $1 AND status = 'bound' AND purpose = 'metadata'
              AND expires_at IS NULL FOR UPDATE
            """, [conversation]).map(ChatBlob.init(row:))
        if let avatar {
            if let carried = current.first(where: { $0.blobID == avatar.blobID }) {
                guard carried.sha256 == avatar.sha256, carried.size == avatar.size, avatar.purpose == "metadata" else {
                    throw ChatRefusal(.invalidMetadataSnapshot, "avatarBinding does not describe the current avatar")
                }
            } else {
                guard avatar.purpose == "metadata" else { throw ChatRefusal(.invalidMetadataSnapshot, "an avatar's purpose is metadata") }
                _ = try bindable(avatar, conversation: conversation, did: did, now: now,
                                 notFound: .invalidMetadataSnapshot, conflict: .invalidMetadataSnapshot)
            }
            try connection.execute("""
                UPDATE chat_blobs SET status = 'bound', bound_metadata_version = $2, expires_at = NULL WHERE blob_id = $1
                """, [avatar.blobID, Int64(metadataVersion)])
        }
        let superseded = current.map(\.blobID).filter { $0 != avatar?.blobID }
        if !superseded.isEmpty {
            try connection.execute("UPDATE chat_blobs SET expires_at = $2 WHERE blob_id = ANY($1)",
                                   [PGArray(superseded.map { Data($0.bytes) }), now])
        }
    }

    /// The blob `did`'s device `device` may download at `now`, or nil: an attachment whose entry
    /// lies in one of the device's intervals of its conversation, the avatar a snapshot of the
    /// conversation binds to any device of a participant, an unbound upload to its own account.
    public func readableBlob(_ id: ChatUUID, did: String, device: ChatUUID, now: Date) throws -> ChatBlob? {
        guard let blob = try blob(id), blob.isLive(at: now) else { return nil }
        switch (blob.status, blob.purpose) {
        case (.uploaded, _):
            return blob.ownerDID == did ? blob : nil
        case (.bound, "attachment"):
            guard let seq = blob.boundSeq else { return nil }
            let covered = try intervals(blob.conversationID, did: did, device: device).contains { $0.contains(seq) }
            return covered ? blob : nil
        case (.bound, "metadata"):
            return try participant(blob.conversationID, did: did) != nil ? blob : nil
        default:
            return nil
        }
    }
}

extension DeliveryStore {
    /// Ends up to `limit` chat blobs dead at `now` (reservations whose ticket expired, uploads
    /// nothing bound within the hour, avatars a newer snapshot replaced, uploads a crash cut
    /// short), in one short transaction. Returns how many, and the content hashes the caller must
    /// release after it (`BlobReclaimer`), as `purgeUnlinkedBlobs` does for v1's.
    public func endExpiredChatBlobs(now: Date, limit: Int) throws -> (ended: Int, hashes: [[UInt8]]) {
        try chat { tx in
            let rows = try tx.connection.query("""
                UPDATE chat_blobs b SET status = 'ended', ticket_hash = NULL, expires_at = NULL, ended_at = $1
                FROM (SELECT blob_id, status FROM chat_blobs WHERE status <> 'ended' AND expires_at <= $1
                      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) old
                WHERE b.blob_id = old.blob_id
                RETURNING old.status IN ('uploaded', 'bound') AS stored, b.sha256
                """, [now, Int64(limit)])
            let hashes = try rows.filter { try $0.bool("stored") }.map { try $0.bytes("sha256") }
            return (rows.count, Array(Set(hashes)).sorted { $0.lexicographicallyPrecedes($1) })
        }
    }
}

/// SQL shared by both contracts' quota checks.
enum ChatBlobSQL {
    /// The condition of `owner`'s live chat blobs at `now` (parameter placeholders).
    static func live(owner: String, now: String) -> String {
        "owner_did = \(owner) AND status <> 'ended' AND (expires_at IS NULL OR expires_at > \(now))"
    }

    /// Bytes `owner`'s live chat blobs hold or reserve at `now`.
    static func liveBytes(owner: String, now: String) -> String {
        "(SELECT coalesce(sum(size), 0)::bigint FROM chat_blobs WHERE \(live(owner: owner, now: now)))"
    }

    /// Whether a chat blob stores the content hash `sha256`.
    static func storesContent(_ sha256: String) -> String {
        "EXISTS (SELECT 1 FROM chat_blobs WHERE sha256 = \(sha256) AND status IN ('uploaded', 'bound'))"
    }
}
