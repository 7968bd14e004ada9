import Basics
import Foundation
import Store

/// Advisory-lock classes (the first key of `pg_advisory_xact_lock(int, int)`), apart from the
/// migrator's single-key lock.
enum BlobLock {
    /// Serializes one owner's uploads, so the quota check and the insert see the same total.
    static let owner: Int32 = 0x626C_6F71  // "bloq"
    /// Serializes placing, and removing, the file of one content hash.
    static let content: Int32 = 0x626C_6F63  // "bloc"

    /// The second key for a content hash: its first four bytes (the hash is uniform).
    static func key(_ sha256: [UInt8]) -> Int32 {
        Int32(bitPattern: sha256.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }
}

extension DeliveryTransaction {
    /// Bytes `ownerDID` stores in blobs (every upload counts, deduplicated or not), with the bytes
    /// its live chat blobs hold or reserve: the two contracts share one quota.
    public func blobBytesUsed(ownerDID: DID) throws(DeliveryStoreError) -> Int64 {
        try guarded {
            let rows = try connection.query("""
                SELECT (SELECT coalesce(sum(size), 0)::bigint FROM blobs WHERE owner_did = $1)
                       + \(ChatBlobSQL.liveBytes(owner: "$1", now: "$2")) AS used
                """, [ownerDID, Date()])
            return try rows.first?.int64("used") ?? 0
        }
    }

    /// Records an upload if the owner's total stays within `quota` (`quotaExceeded` otherwise).
    ///
    /// Holds the owner's lock (concurrent uploads of one owner are counted one after another) and
    /// the content hash's lock until the transaction ends; `place` runs under both, after the quota
    /// check and before the insert, to move the file into place: a concurrent removal of the same
    /// content (`withContentLock`) then either ran before, or sees this row. `place` may run again
    /// if the transaction is retried.
    public func insertBlob(_ blob: NewBlob, quota: Int64, place: () throws -> Void) throws -> StoredBlob {
        guard blob.sha256.count == 32 else { throw DeliveryStoreError.invalidArgument("a SHA-256 hash is 32 bytes") }
        guard blob.size >= 1 else { throw DeliveryStoreError.invalidArgument("a blob has at least one byte") }
        try connection.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", [BlobLock.owner, blob.ownerDID])
        let used = try blobBytesUsed(ownerDID: blob.ownerDID)
        guard used + blob.size <= quota else { throw DeliveryStoreError.quotaExceeded(used: used, quota: quota) }
        try connection.execute("SELECT pg_advisory_xact_lock($1, $2)", [BlobLock.content, BlobLock.key(blob.sha256)])
        try place()
        let rows = try connection.query("""
            INSERT INTO blobs (blob_id, sha256, size, owner_did, convo_id, mime_type)
            VALUES ($1, $2, $3, $4, $5, $6) RETURNING \(StoredBlob.columns)
            """, [blob.blobID, blob.sha256, blob.size, blob.ownerDID, blob.convoID, blob.mimeType])
        guard let row = rows.first else { throw StoreError.decoding("no row from the blob insert") }
        return try StoredBlob(row: row)
    }

    /// The blob's row, or nil.
    public func blob(id blobID: String) throws(DeliveryStoreError) -> StoredBlob? {
        try guarded {
            try connection.query("SELECT \(StoredBlob.columns) FROM blobs WHERE blob_id = $1", [blobID])
                .first.map(StoredBlob.init(row:))
        }
    }

    /// Links the message at (`convoID`, `seq`) to `blobIDs`. Each blob must exist and belong to
    /// the conversation (`invalidAttachment` otherwise). The rows are key-share locked, so
    /// retention cannot delete a blob while this transaction links it.
    public func attachBlobs(_ blobIDs: [String], convoID: String, seq: Int64) throws(DeliveryStoreError) {
        guard !blobIDs.isEmpty else { return }
        let unique = Array(Set(blobIDs))
        try guarded {
            let rows = try connection.query("""
                SELECT blob_id, convo_id FROM blobs WHERE blob_id = ANY($1) FOR KEY SHARE
                """, [PGArray(unique)])
            var found: [String: String] = [:]
            for row in rows { found[try row.string("blob_id")] = try row.string("convo_id") }
            for id in unique {
                guard let owner = found[id] else { throw DeliveryStoreError.invalidAttachment("unknown blob \(id)") }
                guard owner == convoID else {
                    throw DeliveryStoreError.invalidAttachment("blob \(id) belongs to another conversation")
                }
            }
            try connection.execute("""
                INSERT INTO message_attachments (convo_id, seq, blob_id) SELECT $1, $2, unnest($3::text[])
                """, [convoID, seq, PGArray(unique)])
        }
    }

    /// The blob ids linked to the message at (`convoID`, `seq`), sorted.
    public func attachments(convoID: String, seq: Int64) throws(DeliveryStoreError) -> [String] {
        try guarded {
            try connection.query("""
                SELECT blob_id FROM message_attachments WHERE convo_id = $1 AND seq = $2 ORDER BY blob_id
                """, [convoID, seq]).map { try $0.string("blob_id") }
        }
    }
}

extension StoredBlob {
    static let columns = "blob_id, sha256, size, owner_did, convo_id, mime_type, created_at"

    init(row: PGRow) throws {
        self.init(blobID: try row.string("blob_id"), sha256: try row.bytes("sha256"), size: try row.int64("size"),
                  ownerDID: try row.string("owner_did"), convoID: try row.string("convo_id"),
                  mimeType: try row.string("mime_type"), createdAt: try row.date("created_at"))
    }
}
