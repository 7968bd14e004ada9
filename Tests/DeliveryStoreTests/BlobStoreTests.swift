import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

/// The blob rows: quota-checked inserts, attachment links, the purge of unlinked blobs and the
/// content lock that orders placing and removing a file.
final class BlobStoreTests: StoreTestCase {
    func blobID() -> String { String((0..<26).map { _ in "abcdefghijklmnopqrstuvwxyz234567".randomElement()! }) }

    func newBlob(_ convo: String, owner: String = "alice", size: Int64 = 100, sha256: [UInt8]? = nil) -> NewBlob {
        NewBlob(blobID: blobID(), sha256: sha256 ?? (0..<32).map { _ in UInt8.random(in: 0...255) }, size: size,
                ownerDID: user(owner), convoID: convo, mimeType: "application/octet-stream")
    }

    func test_insert_countsTheOwnersBytes_andRefusesPastTheQuota_beforePlacing() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        var placed = 0
        let first = try store.insertBlob(newBlob(convo, size: 600), quota: 1000) { placed += 1 }
        XCTAssertEqual(first.size, 600)
        XCTAssertEqual(first.ownerDID, did("alice"))
        XCTAssertEqual(try store.blob(id: first.blobID), first)
        XCTAssertEqual(deliveryError { try store.insertBlob(newBlob(convo, size: 401), quota: 1000) { placed += 1 } },
                       .quotaExceeded(used: 600, quota: 1000))
        XCTAssertEqual(placed, 1, "a refused upload is never moved into place")
        _ = try store.insertBlob(newBlob(convo, size: 400), quota: 1000) { placed += 1 }
        _ = try store.insertBlob(newBlob(convo, owner: "bob", size: 1000), quota: 1000) {}
        XCTAssertEqual(try store.blobBytesUsed(ownerDID: user("alice")), 1000)
        XCTAssertEqual(try store.blobBytesUsed(ownerDID: user("bob")), 1000)
        XCTAssertNil(try store.blob(id: blobID()))
    }

    func test_attach_linksBlobsOfTheConversation_only() throws {
        let convo = try makeConvo([leaf(0, "alice")]), other = try makeConvo([leaf(0, "bob")], creator: "bob")
        let mine = try store.insertBlob(newBlob(convo), quota: .max) {}
        let theirs = try store.insertBlob(newBlob(other, owner: "bob"), quota: .max) {}
        let seq = try store.transaction { tx in
            let stored = try tx.appendMessage(message(convo))
            try tx.attachBlobs([mine.blobID], convoID: convo, seq: stored.seq)
            return stored.seq
        }
        XCTAssertEqual(try store.transaction { try $0.attachments(convoID: convo, seq: seq) }, [mine.blobID])
        for (ids, reason) in [([blobID()], "unknown"), ([theirs.blobID], "other convo"), ([mine.blobID, blobID()], "one unknown")] {
            let before = try fixture.count("SELECT count(*) FROM messages")
            let error = deliveryError {
                try store.transaction { tx in
                    let stored = try tx.appendMessage(message(convo))
                    try tx.attachBlobs(ids, convoID: convo, seq: stored.seq)
                }
            }
            guard case .invalidAttachment = error else { return XCTFail("\(reason): \(String(describing: error))") }
            XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), before, "\(reason): rolled back")
        }
    }

    func test_purge_deletesOldUnlinkedBlobs_andReturnsTheirHashesOnce() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let shared: [UInt8] = Array(repeating: 7, count: 32)
        let linked = try store.insertBlob(newBlob(convo), quota: .max) {}
        let loose = try store.insertBlob(newBlob(convo, sha256: shared), quota: .max) {}
        let twin = try store.insertBlob(newBlob(convo, sha256: shared), quota: .max) {}
        let recent = try store.insertBlob(newBlob(convo), quota: .max) {}
        let seq = try store.transaction { tx in
            let stored = try tx.appendMessage(message(convo))
            try tx.attachBlobs([linked.blobID], convoID: convo, seq: stored.seq)
            return stored.seq
        }
        try fixture.database.execute("UPDATE blobs SET created_at = created_at - interval '2 days' WHERE blob_id <> $1", [recent.blobID])
        let cutoff = Date().addingTimeInterval(-86_400)

        let purged = try store.purgeUnlinkedBlobs(createdBefore: cutoff, limit: 10)
        XCTAssertEqual(purged.deleted, 2)
        XCTAssertEqual(purged.hashes, [shared])
        XCTAssertNil(try store.blob(id: loose.blobID))
        XCTAssertNil(try store.blob(id: twin.blobID))
        XCTAssertNotNil(try store.blob(id: linked.blobID))
        XCTAssertNotNil(try store.blob(id: recent.blobID))
        XCTAssertFalse(try store.withContentLock(sha256: shared) { $0 })
        XCTAssertTrue(try store.withContentLock(sha256: linked.sha256) { $0 })
        XCTAssertEqual(try store.referencedContent([shared, linked.sha256, recent.sha256]), [linked.sha256, recent.sha256])

        // Purging the message drops its link; the blob goes on the next pass.
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM message_attachments WHERE seq = $1", [seq]), 1)
        try fixture.database.execute("UPDATE messages SET created_at = created_at - interval '40 days'")
        _ = try store.purgeExpired(.messages, createdBefore: Date().addingTimeInterval(-30 * 86_400), limit: 100)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM message_attachments"), 0)
        XCTAssertEqual(try store.purgeUnlinkedBlobs(createdBefore: cutoff, limit: 10).deleted, 1)
        XCTAssertEqual(deliveryError { try store.purgeUnlinkedBlobs(createdBefore: cutoff, limit: 0) }, .invalidArgument("limit ≥ 1"))
    }

    /// A removal checking the content while an upload of it is being placed waits for the upload's
    /// commit, and then sees its row.
    func test_contentLock_ordersRemovalAfterAConcurrentUpload() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let blob = newBlob(convo)
        let entered = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let store = self.store
        let seen = Locked<Bool?>(nil)
        Thread {
            _ = try? store.insertBlob(blob, quota: .max) {
                entered.signal()
                proceed.wait()
            }
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success)
        Thread {
            let referenced = try? store.withContentLock(sha256: blob.sha256) { $0 }
            seen.withLock { $0 = referenced }
            done.signal()
        }.start()
        // Give the second transaction the chance to reach the lock while the upload holds it.
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertNil(seen.value, "the removal ran while the upload held the content lock")
        proceed.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(seen.value, true)
    }
}
