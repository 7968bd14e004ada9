import Basics
import Foundation
import Store

extension DeliveryStore {
    /// See `DeliveryTransaction.insertBlob`; one transaction. Errors `place` throws arrive as they are.
    public func insertBlob(_ blob: NewBlob, quota: Int64, place: () throws -> Void) throws -> StoredBlob {
        try transaction { try $0.insertBlob(blob, quota: quota, place: place) }
    }

    public func blob(id blobID: String) throws(DeliveryStoreError) -> StoredBlob? {
        try run { transaction throws(DeliveryStoreError) in try transaction.blob(id: blobID) }
    }

    public func blobBytesUsed(ownerDID: DID) throws(DeliveryStoreError) -> Int64 {
        try run { transaction throws(DeliveryStoreError) in try transaction.blobBytesUsed(ownerDID: ownerDID) }
    }

    /// Deletes at most `limit` blob rows created before `cutoff` that no message links to, in one
    /// short transaction, and returns the content hashes they used (distinct). The caller removes
    /// each file afterwards through `withContentLock`, since another row may share it. Rows a
    /// concurrent sendMessage is linking are locked and skipped.
    public func purgeUnlinkedBlobs(createdBefore cutoff: Date, limit: Int) throws(DeliveryStoreError) -> (deleted: Int, hashes: [[UInt8]]) {
        guard limit >= 1 else { throw DeliveryStoreError.invalidArgument("limit ≥ 1") }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let rows = try transaction.connection.query("""
                    DELETE FROM blobs WHERE blob_id IN (
                        SELECT b.blob_id FROM blobs b
                        WHERE b.created_at < $1
                          AND NOT EXISTS (SELECT 1 FROM message_attachments a WHERE a.blob_id = b.blob_id)
                        LIMIT $2 FOR UPDATE SKIP LOCKED)
                    RETURNING sha256
                    """, [cutoff, Int64(limit)])
                let hashes = try rows.map { try $0.bytes("sha256") }
                return (rows.count, Array(Set(hashes)).sorted { $0.lexicographicallyPrecedes($1) })
            }
        }
    }

    /// Runs `body` holding the content hash's lock, telling it whether any blob row (v1's or a
    /// stored chat blob) still uses the hash; for removing a file only when nothing refers to it, without racing an upload of
    /// the same content (which places its file under the same lock).
    public func withContentLock<T>(sha256: [UInt8], _ body: (_ referenced: Bool) throws -> T) throws(DeliveryStoreError) -> T {
        try guarded {
            try transaction { transaction in
                try transaction.connection.execute("SELECT pg_advisory_xact_lock($1, $2)",
                                                   [BlobLock.content, BlobLock.key(sha256)])
                let rows = try transaction.connection.query(
                    "SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = $1) OR \(ChatBlobSQL.storesContent("$1")) AS referenced",
                    [sha256])
                return try body(try rows.first?.bool("referenced") ?? false)
            }
        }
    }

    /// Which of `hashes` some blob row (v1's or a stored chat blob) still uses.
    public func referencedContent(_ hashes: [[UInt8]]) throws(DeliveryStoreError) -> Set<[UInt8]> {
        guard !hashes.isEmpty else { return [] }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded {
                Set(try transaction.connection.query("""
                    SELECT sha256 FROM blobs WHERE sha256 = ANY($1)
                    UNION SELECT sha256 FROM chat_blobs WHERE sha256 = ANY($1) AND status IN ('uploaded', 'bound')
                    """, [PGArray(hashes.map { Data($0) })]).map { try $0.bytes("sha256") })
            }
        }
    }
}
