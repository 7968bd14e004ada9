@testable import DeliveryService
import DeliveryStore
import Foundation
import Primitives
import TestSupport
import XCTest

/// The per-user quota, retention of blobs with their messages, and the orphan-file sweep.
final class BlobQuotaAndRetentionTests: XCTestCase {
    func test_quota_refusesDeclaredAndStreamedOverruns_andCountsEveryUpload() throws {
        let harness = try ServiceHarness(environment: ["BLOB_QUOTA_BYTES": "10000"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let blobs = BlobFixture(harness)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)

        XCTAssertEqual(try blobs.upload(BlobFixture.randomBytes(6000), convo: convo, as: alice.identity).status, 200)
        // 6000 + 5000 > 10000: refused from the declared length, before the body.
        let over = try blobs.upload(BlobFixture.randomBytes(5000), convo: convo, as: alice.identity)
        XCTAssertEqual(over.status, 413)
        XCTAssertEqual(over.error, "QuotaExceeded")
        // A chunked body declares nothing: refused while streaming.
        let client = try BlobRawClient(port: harness.app.port)
        let token = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: BlobFixture.upload)
        client.send(Array(("POST /xrpc/\(BlobFixture.upload)?convoId=\(convo) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n").utf8))
        client.send(Array("1388\r\n".utf8) + BlobFixture.randomBytes(5000) + Array("\r\n0\r\n\r\n".utf8))
        let streamed = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(streamed.status, 413)
        XCTAssertTrue(streamed.body.contains("QuotaExceeded"), streamed.body)
        // What is left still fits; identical content counts again (each upload is the owner's).
        let rest = BlobFixture.randomBytes(2000)
        XCTAssertEqual(try blobs.upload(rest, convo: convo, as: alice.identity).status, 200)
        XCTAssertEqual(try blobs.upload(rest, convo: convo, as: alice.identity).status, 200)
        XCTAssertEqual(try blobs.upload([1], convo: convo, as: alice.identity).error, "QuotaExceeded")
        // Bob's quota is his own.
        XCTAssertEqual(try blobs.upload(BlobFixture.randomBytes(9000), convo: convo, as: bob.identity).status, 200)
        XCTAssertEqual(try harness.app.database.query("SELECT count(*) FROM blobs")[0].int(0), 4)
        XCTAssertTrue(blobs.eventually { !blobs.files.contains { $0.hasPrefix("tmp/") } })
        XCTAssertEqual(blobs.files.count, 3, "6000, 2000 (once), 9000")
    }

    func test_concurrentUploads_neverOvershootTheQuota() throws {
        let harness = try ServiceHarness(environment: ["BLOB_QUOTA_BYTES": "50000", "RATE_LIMIT_ENABLED": "0"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let blobs = BlobFixture(harness)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        let accepted = Counter()
        let identity = alice.identity
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            if (try? blobs.upload(BlobFixture.randomBytes(10000), convo: convo, as: identity).status) == 200 {
                accepted.increment()
            }
        }
        XCTAssertEqual(accepted.value, 5)
        let used = try harness.app.database.query("SELECT sum(size)::bigint AS used FROM blobs")[0].int64("used")
        XCTAssertEqual(used, 50000)
    }

    /// Blobs attached to live messages stay; unattached ones, and those whose messages expired,
    /// go (row, then file); a file shared by another row stays.
    func test_retention_deletesUnlinkedBlobs_andTheirFiles_keepsLinkedOnes() throws {
        let harness = try ServiceHarness(environment: ["MESSAGE_TTL_DAYS": "0"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let blobs = BlobFixture(harness)
        let database = harness.app.database
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        func upload(_ bytes: [UInt8]) throws -> String {
            let reply = try blobs.upload(bytes, convo: convo, as: alice.identity)
            XCTAssertEqual(reply.status, 200, "\(reply.json)")
            return try XCTUnwrap((reply.json["blob"] as? [String: Any])?["blobId"] as? String)
        }
        func send(_ attachments: [String]) throws -> Int {
            var group = try XCTUnwrap(alice.groups[convo])
            let message = try group.encrypt(Array("attached".utf8))
            alice.groups[convo] = group
            let reply = try harness.call("blue.catbird.mls.sendMessage", as: alice.identity, json: [
                "convoId": convo, "msgId": MessageID.next(), "epoch": Int(group.epoch),
                "ciphertext": MLSTestUser.bytes(message), "attachments": attachments,
            ])
            XCTAssertEqual(reply.status, 200, "\(reply.json)")
            return try XCTUnwrap(reply.json["seq"] as? Int)
        }
        let keptBytes = BlobFixture.randomBytes(300), expiredBytes = BlobFixture.randomBytes(301)
        let sharedBytes = BlobFixture.randomBytes(302)
        let kept = try upload(keptBytes)
        let expired = try upload(expiredBytes)
        let never = try upload(BlobFixture.randomBytes(303))
        let sharedUnlinked = try upload(sharedBytes)
        let sharedLinked = try upload(sharedBytes)
        let fresh = try upload(BlobFixture.randomBytes(304))
        let oldSeq = try send([expired])
        _ = try send([kept, sharedLinked])
        XCTAssertEqual(blobs.files.count, 5)

        // Everything but `fresh` was uploaded 40 days ago; the message linking `expired` too.
        try database.execute("UPDATE blobs SET created_at = created_at - interval '40 days' WHERE blob_id <> $1", [fresh])
        try database.execute("UPDATE messages SET created_at = created_at - interval '40 days' WHERE convo_id = $1 AND seq <= $2",
                             [convo, Int64(oldSeq)])

        var settings = RetentionJob.Settings()
        settings.ttlDays = 30
        settings.batchSize = 2
        let store = DeliveryStore(database: database)
        let reclaimer = BlobReclaimer(store: store, blobs: try BlobDirectory(root: harness.blobDirectory), log: harness.app.log)
        let job = RetentionJob(store: store, settings: settings, log: harness.app.log,
                               extraSteps: [BlobRetention(reclaimer: reclaimer, now: { Date() }),
                                            BlobFileSweep(reclaimer: reclaimer, now: { Date() })])
        let report = job.runOnce()
        XCTAssertEqual(report.deleted["blobs"], 3, "expired, never, sharedUnlinked")
        XCTAssertEqual(report.deleted["blob_files"], 0)
        let left = try database.query("SELECT blob_id FROM blobs ORDER BY blob_id").map { try $0.string("blob_id") }
        XCTAssertEqual(left, [kept, sharedLinked, fresh].sorted())
        XCTAssertEqual(blobs.files.count, 3, "kept, shared (still used by sharedLinked), fresh")
        let user = alice.identity
        XCTAssertEqual(try blobs.fetch(expired, as: user).error, "BlobNotFound")
        XCTAssertEqual(try blobs.fetch(never, as: user).status, 404)
        XCTAssertEqual(try blobs.fetch(sharedUnlinked, as: user).status, 404)
        XCTAssertEqual(try blobs.fetch(sharedLinked, as: user).body, sharedBytes)
        XCTAssertEqual(try blobs.fetch(kept, as: user).body, keptBytes)
        XCTAssertEqual(job.runOnce().deleted["blobs"], 0)

        // A fresh upload not attached yet is kept until it is a day old.
        try database.execute("UPDATE blobs SET created_at = created_at - interval '25 hours' WHERE blob_id = $1", [fresh])
        XCTAssertEqual(job.runOnce().deleted["blobs"], 1)
        XCTAssertEqual(blobs.files.count, 2)
    }

    func test_orphanSweep_removesOldFilesWithoutRows_only() throws {
        let harness = try ServiceHarness(environment: ["MESSAGE_TTL_DAYS": "0"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let blobs = BlobFixture(harness)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        let usedBytes = BlobFixture.randomBytes(500)
        XCTAssertEqual(try blobs.upload(usedBytes, convo: convo, as: alice.identity).status, 200)

        let directory = try BlobDirectory(root: harness.blobDirectory)
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        func plant(_ path: String, modified: Date) throws {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
        }
        let oldOrphan = directory.path(for: HashAlgorithm.sha256.hash([9, 9, 9]))
        let newOrphan = directory.path(for: HashAlgorithm.sha256.hash([8, 8, 8]))
        let oldTemporary = directory.temporaryDirectory + "/upload-crashed"
        try plant(oldOrphan, modified: twoHoursAgo)
        try plant(newOrphan, modified: Date())
        try plant(oldTemporary, modified: twoHoursAgo)
        // The file of a live row is old too, but kept.
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo],
                                              ofItemAtPath: directory.path(for: HashAlgorithm.sha256.hash(usedBytes)))

        let reclaimer = BlobReclaimer(store: DeliveryStore(database: harness.app.database), blobs: directory, log: harness.app.log)
        let sweep = BlobFileSweep(reclaimer: reclaimer, now: { Date() })
        XCTAssertEqual(try sweep.purgeBatch(createdBefore: Date(), limit: 100), 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldOrphan))
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldTemporary))
        XCTAssertTrue(FileManager.default.fileExists(atPath: newOrphan))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path(for: HashAlgorithm.sha256.hash(usedBytes))))
        XCTAssertEqual(try sweep.purgeBatch(createdBefore: Date(), limit: 100), 0)
    }
}
