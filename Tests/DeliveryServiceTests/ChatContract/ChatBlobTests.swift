import Basics
import ChatProtocol
@testable import DeliveryService
import DeliveryStore
import Foundation
@testable import MLSClient
import Primitives
import Store
import Synchronization
import TestSupport
import XCTest

/// The chat contract's blobs against the real service and PostgreSQL: a photo through the two
/// steps (prepareBlobUpload, uploadBlob), bound by its message, fetched and decrypted by members
/// only inside their intervals; and each refusal, with what it leaves behind (rows, files, quota).
/// The service's chat clock is moved by hand to let tickets and uploads expire.
final class ChatBlobTests: ChatContractTestCase {
    static let clock = ShiftedClock()
    static let quota = 24 << 20

    override class func makeHarness() throws -> ServiceHarness {
        try ServiceHarness(environment: ["BLOB_QUOTA_BYTES": String(quota), "RATE_LIMIT_ENABLED": "0"], clock: clock.closure)
    }

    override func tearDown() {
        Self.clock.reset()
        super.tearDown()
    }

    // MARK: Helpers

    /// A group of alice's device alone.
    func solo() throws -> (ChatClient, ChatUUID) {
        let (alice, _) = try enrolled()
        return (alice, try alice.create(inviting: []).id)
    }

    struct Prepared {
        var id: ChatUUID
        var ticket: String
        var bytes: [UInt8]
        var binding: ChatValue {
            .object(["blobId": .uuid(id), "ciphertextSha256": .bytes(HashAlgorithm.sha256.hash(bytes)),
                     "ciphertextSize": .integer(UInt64(bytes.count)), "purpose": .text("attachment")])
        }
    }

    /// prepareBlobUpload of `bytes` (standing for a ciphertext) by `client` in `conversation`.
    func prepare(_ client: ChatClient, _ conversation: ChatUUID, _ bytes: [UInt8], purpose: String = "attachment",
                 id: ChatUUID = .random()) throws -> Prepared {
        let upload = try client.prepareBlob(id, in: conversation, at: try client.coordinates(conversation),
                                            sha256: HashAlgorithm.sha256.hash(bytes), size: bytes.count, mediaType: "image/png",
                                            plaintextSize: bytes.count - 16, purpose: purpose)
        XCTAssertEqual(upload["blobId"]?.uuid, id)
        return Prepared(id: id, ticket: try XCTUnwrap(upload["uploadTicket"]?.text), bytes: bytes)
    }

    func uploaded(_ client: ChatClient, _ conversation: ChatUUID, _ bytes: [UInt8], purpose: String = "attachment") throws -> Prepared {
        let prepared = try prepare(client, conversation, bytes, purpose: purpose)
        try client.api.uploadBlob(bytes, device: client.device.deviceID, ticket: prepared.ticket)
        return prepared
    }

    /// A message of `client` (text only) binding `binding`, through the client's own sealing.
    @discardableResult
    func send(_ client: ChatClient, _ conversation: ChatUUID, binding: ChatValue) throws -> ChatValue {
        try client.sync(conversation)
        return try client.post(try client.seal(message: .object(["text": .text("see attached")]), id: .random(), bindings: [binding],
                                               in: conversation, at: try client.coordinates(conversation)), in: conversation)
    }

    func usage(_ client: ChatClient) throws -> [String: UInt64] {
        (try client.blobUsage().members ?? [:]).compactMapValues(\.integer)
    }

    func status(_ blob: ChatUUID) throws -> String? {
        let database = try Database(url: try service.databaseURL, poolSize: 1)
        defer { database.close() }
        return try database.transaction {
            try $0.query("SELECT status FROM chat_blobs WHERE blob_id = $1", [blob.bytes]).first?.string("status")
        }
    }

    /// Whether BLOB_DIR holds the content file of `bytes` (the test class shares one BLOB_DIR).
    func stored(_ bytes: [UInt8]) throws -> Bool {
        let hex = Hex.encode(HashAlgorithm.sha256.hash(bytes))
        return FileManager.default.fileExists(atPath: "\(try service.blobDirectory)/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)")
    }

    /// Whether an upload's temporary file is left.
    var temporaryFiles: Bool { get throws { BlobFixture(try service).files.contains { $0.hasPrefix("tmp/") } } }

    /// uploadBlob with a chunked body (no Content-Length): the checks run as the bytes stream.
    /// Without `end` the body stays open, so an answer shows the service refused it before its end.
    func uploadChunked(_ client: ChatClient, ticket: String, _ bytes: [UInt8], end: Bool = true) throws -> (status: Int, body: String) {
        let raw = try uploadHead(client, ticket: ticket, framing: "Transfer-Encoding: chunked")
        raw.send(Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + Array((end ? "\r\n0\r\n\r\n" : "\r\n").utf8))
        return try XCTUnwrap(raw.readResponse(), "no answer")
    }

    /// A raw connection that sent an uploadBlob request's head.
    func uploadHead(_ client: ChatClient, ticket: String, framing: String) throws -> BlobRawClient {
        let nsid = ChatAPI.nsid("uploadBlob")
        let raw = try BlobRawClient(port: try service.app.port, receiveTimeout: 10)
        raw.send(Array(("POST /xrpc/\(nsid)?actorDeviceId=\(client.device.deviceID)&uploadTicket=\(ticket) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(try client.api.token(nsid))\r\nContent-Type: application/octet-stream\r\n\(framing)\r\n\r\n").utf8))
        return raw
    }

    // MARK: Tests

    func testPhotoThroughTwoStepsIsReadByMembersInsideTheirIntervalsOnly() throws {
        let (alice, bob, bobIdentity, conversation) = try pairWithIdentity()
        let (carol, _) = try enrolled()
        let photo = BlobFixture.randomBytes(300_000)
        let entry = try alice.sendImage(conversation, bytes: photo, mimeType: "image/png", width: 640, height: 480, text: "the view")
        XCTAssertEqual(entry["signedRequest"]?["body"]?["blobBindings"]?.array?.count, 1)

        // bob reads the message, verifies its signature, decrypts the frame, then fetches the blob
        // and opens it with the embed's key under the message's blob AAD.
        let messages = try bob.read(conversation)
        XCTAssertEqual(messages.map(\.text), ["the view"])
        let attachment = try XCTUnwrap(messages.first?.attachment)
        XCTAssertEqual(attachment.mimeType, "image/png")
        XCTAssertEqual(try bob.open(attachment), photo)
        XCTAssertEqual(try alice.open(attachment), photo)

        // The sender's storage: the ciphertext stored, nothing reserved or waiting unbound.
        XCTAssertEqual(try usage(alice), ["usedBytes": UInt64(photo.count + 16), "reservedBytes": 0, "quotaBytes": 524_288_000,
                                          "blobCount": 1, "liveUnboundCount": 0])

        // Not to a device of an account outside the conversation.
        XCTAssertEqual(refusal(404) { try carol.open(attachment) }, "BlobNotFound")
        // Not to a device that joined after the message: its interval starts later.
        let (bob2, _) = try enrolled(bobIdentity)
        try bob2.requestLeaf(conversation)
        try alice.fulfil(try recovery(for: bob2, in: conversation, seenBy: alice))
        try join(bob2)
        XCTAssertEqual(refusal(404) { try bob2.open(attachment) }, "BlobNotFound")
        // A photo sent after it joined is its to read.
        let later = BlobFixture.randomBytes(20_000)
        try alice.sendImage(conversation, bytes: later, mimeType: "image/jpeg", width: 10, height: 10)
        let seen = try bob2.read(conversation)
        XCTAssertEqual(try bob2.open(try XCTUnwrap(seen.last?.attachment)), later)
        XCTAssertEqual(seen.last?.text, "")
        // Bound blobs are not the uploader's to delete.
        XCTAssertEqual(refusal(400) { try alice.deleteBlob(attachment.blobID) }, "BlobBound")
    }

    func testBytesWhoseHashOrSizeDoNotMatchAreNotKept() throws {
        let (alice, conversation) = try solo()
        let bytes = BlobFixture.randomBytes(5000)
        var tampered = bytes
        tampered[4000] ^= 1

        // Same size, another hash: refused at the end, the reservation ended, no file, no quota.
        let first = try prepare(alice, conversation, bytes)
        XCTAssertEqual(try usage(alice)["reservedBytes"], 5000)
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(tampered, device: alice.device.deviceID, ticket: first.ticket) },
                       "BlobHashMismatch")
        XCTAssertEqual(try status(first.id), "ended")
        XCTAssertEqual(try usage(alice)["reservedBytes"], 0)
        XCTAssertEqual(try usage(alice)["liveUnboundCount"], 0)
        // The ticket was spent by the failed attempt.
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: first.ticket) },
                       "UploadTicketNotFound")

        // A declared length other than the prepared size: refused from the head.
        let second = try prepare(alice, conversation, bytes)
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(Array(bytes.dropLast()), device: alice.device.deviceID, ticket: second.ticket) },
                       "BlobSizeMismatch")
        XCTAssertEqual(try status(second.id), "ended")

        // Refused from the head, before a body byte arrives.
        let early = try uploadHead(alice, ticket: try prepare(alice, conversation, bytes).ticket, framing: "Content-Length: 5001")
        let answer = try XCTUnwrap(early.readResponse(), "no answer before the body")
        XCTAssertEqual(answer.status, 400)
        XCTAssertTrue(answer.body.contains("BlobSizeMismatch"), answer.body)

        // Chunked bodies declare nothing: one byte too many is refused as it streams (the body
        // still open), a wrong hash at its end.
        let third = try prepare(alice, conversation, bytes)
        let over = try uploadChunked(alice, ticket: third.ticket, bytes + [0], end: false)
        XCTAssertEqual(over.status, 400)
        XCTAssertTrue(over.body.contains("BlobSizeMismatch"), over.body)
        let fourth = try prepare(alice, conversation, bytes)
        let wrong = try uploadChunked(alice, ticket: fourth.ticket, tampered)
        XCTAssertEqual(wrong.status, 400)
        XCTAssertTrue(wrong.body.contains("BlobHashMismatch"), wrong.body)
        let short = try uploadChunked(alice, ticket: try prepare(alice, conversation, bytes).ticket, Array(bytes.prefix(100)))
        XCTAssertTrue(short.body.contains("BlobSizeMismatch"), short.body)

        XCTAssertEqual(try usage(alice), ["usedBytes": 0, "reservedBytes": 0, "quotaBytes": 524_288_000, "blobCount": 0,
                                          "liveUnboundCount": 0])
        XCTAssertFalse(try stored(bytes))
        XCTAssertFalse(try stored(tampered))
        XCTAssertFalse(try stored(bytes + [0]))
        XCTAssertFalse(try temporaryFiles)

        // The right bytes, prepared again, are kept.
        let fifth = try prepare(alice, conversation, bytes)
        let kept = try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: fifth.ticket)
        XCTAssertEqual(kept["binding"]?["blobId"]?.uuid, fifth.id)
        XCTAssertEqual(kept["binding"]?["ciphertextSize"]?.integer, 5000)
        XCTAssertEqual(try status(fifth.id), "uploaded")
        XCTAssertTrue(try stored(bytes))
    }

    func testTicketIsUsedOnceByItsDeviceOnly() throws {
        let (alice, aliceIdentity) = try enrolled()
        let (bob, _) = try enrolled()
        let conversation = try alice.create(inviting: []).id
        let (alice2, _) = try enrolled(aliceIdentity)
        let bytes = BlobFixture.randomBytes(2000)
        let prepared = try prepare(alice, conversation, bytes)
        // Another account's device, or another device of the account: not found.
        XCTAssertEqual(refusal(400) { try bob.api.uploadBlob(bytes, device: bob.device.deviceID, ticket: prepared.ticket) },
                       "UploadTicketNotFound")
        XCTAssertEqual(refusal(400) { try alice2.api.uploadBlob(bytes, device: alice2.device.deviceID, ticket: prepared.ticket) },
                       "UploadTicketNotFound")
        XCTAssertEqual(refusal(401) { try bob.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: prepared.ticket) },
                       "NotAuthorized")
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: String(repeating: "A", count: 43)) },
                       "UploadTicketNotFound")
        // Those attempts did not spend it; its device's upload does, once.
        try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: prepared.ticket)
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: prepared.ticket) },
                       "UploadTicketNotFound")

        // The same signed preparation again: a new ticket while the first is unused (the first stops
        // working), BlobAlreadyExists once it was used. Another preparation of the id: BlobAlreadyExists.
        let id = ChatUUID.random()
        let request = SignedRequest.sign(alice.body(.blobUploadPreparation, [
            "blobId": .uuid(id), "conversationId": .uuid(conversation), "prior": try alice.coordinates(conversation).value,
            "ciphertextSha256": .bytes(HashAlgorithm.sha256.hash(bytes)), "ciphertextSize": .integer(2000),
            "mediaType": .text("image/png"), "plaintextSize": .integer(1984), "purpose": .text("attachment"),
        ]), kind: .blobUploadPreparation, key: alice.device.key)
        let firstTicket = try XCTUnwrap(try alice.api.signed("prepareBlobUpload", request)["upload"]?["uploadTicket"]?.text)
        let secondTicket = try XCTUnwrap(try alice.api.signed("prepareBlobUpload", request)["upload"]?["uploadTicket"]?.text)
        XCTAssertNotEqual(firstTicket, secondTicket)
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: firstTicket) },
                       "UploadTicketNotFound")
        try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: secondTicket)
        XCTAssertEqual(refusal(400) { try alice.api.signed("prepareBlobUpload", request) }, "BlobAlreadyExists")
        XCTAssertEqual(refusal(400) { try self.prepare(alice, conversation, bytes, id: id) }, "BlobAlreadyExists")
        // The stored answer holds no ticket.
        XCTAssertEqual(try count("chat_operations WHERE position('uploadTicket' in convert_from(response, 'UTF8')) > 0"), 0)
    }

    func testExpiredTicketsAndUnboundUploadsAreGone() throws {
        let (alice, bob, _, conversation) = try pairWithIdentity()
        let bytes = BlobFixture.randomBytes(3000)

        // A ticket 5 minutes old: refused, and its reservation returned.
        let stale = try prepare(alice, conversation, bytes)
        Self.clock.advance(by: 301)
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(bytes, device: alice.device.deviceID, ticket: stale.ticket) },
                       "UploadTicketExpired")
        XCTAssertEqual(try status(stale.id), "ended")
        XCTAssertEqual(try usage(alice)["reservedBytes"], 0)

        // An upload nothing binds within the hour: unreadable, unbindable, its quota returned at
        // once; the maintenance pass removes its row's bytes.
        let unbound = try uploaded(alice, conversation, bytes)
        let readable = try uploaded(alice, conversation, BlobFixture.randomBytes(1000))
        XCTAssertEqual(try alice.api.getBlob(unbound.id, device: alice.device.deviceID), bytes)
        XCTAssertEqual(refusal(404) { try bob.api.getBlob(unbound.id, device: bob.device.deviceID) }, "BlobNotFound")
        XCTAssertEqual(try usage(alice)["liveUnboundCount"], 2)
        Self.clock.advance(by: 1800)
        try send(alice, conversation, binding: readable.binding)
        Self.clock.advance(by: 1801)
        XCTAssertEqual(refusal(404) { try alice.api.getBlob(unbound.id, device: alice.device.deviceID) }, "BlobNotFound")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: unbound.binding) }, "BlobNotFound")
        XCTAssertEqual(refusal(400) { try alice.deleteBlob(unbound.id) }, "BlobNotFound")
        XCTAssertEqual(try usage(alice)["usedBytes"], 1000)
        XCTAssertEqual(try usage(alice)["liveUnboundCount"], 0)
        try service.app.runMaintenance()
        XCTAssertEqual(try status(unbound.id), "ended")
        XCTAssertFalse(try stored(bytes))
        XCTAssertTrue(try stored(readable.bytes))
        // The bound one lives on with its entry.
        XCTAssertEqual(try status(readable.id), "bound")
        XCTAssertEqual(try bob.api.getBlob(readable.id, device: bob.device.deviceID), readable.bytes)
    }

    func testBindingMustNameOneUploadedBlobExactlyAndOnce() throws {
        let (alice, bob, _, conversation) = try pairWithIdentity()
        let (other, _) = try alice.create(inviting: [])
        let blob = try uploaded(alice, conversation, BlobFixture.randomBytes(4000))
        func binding(_ change: (inout [String: ChatValue]) -> Void) -> ChatValue {
            var members = blob.binding.members!
            change(&members)
            return .object(members)
        }
        let entries = try count("chat_entries")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: binding { $0["ciphertextSha256"] = .bytes([UInt8](repeating: 7, count: 32)) }) },
                       "BlobBindingConflict")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: binding { $0["ciphertextSize"] = .integer(4001) }) },
                       "BlobBindingConflict")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: binding { $0["blobId"] = .uuid(.random()) }) },
                       "BlobNotFound")
        // Another account cannot bind alice's upload; alice cannot bind it in another conversation.
        XCTAssertEqual(refusal(400) { try self.send(bob, conversation, binding: blob.binding) }, "BlobNotFound")
        XCTAssertEqual(refusal(400) { try self.send(alice, other, binding: blob.binding) }, "BlobBindingConflict")
        // A metadata upload is not an attachment.
        let avatar = try uploaded(alice, conversation, BlobFixture.randomBytes(500), purpose: "metadata")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: avatar.binding) }, "BlobBindingConflict")
        // Not uploaded yet.
        let pending = try prepare(alice, conversation, BlobFixture.randomBytes(100))
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: pending.binding) }, "BlobNotFound")
        XCTAssertEqual(try count("chat_entries"), entries, "no refused message was stored")

        let sent = try send(alice, conversation, binding: blob.binding)
        XCTAssertEqual(try status(blob.id), "bound")
        // Once bound, never again: not by another message, nor by the same id in a new request.
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: blob.binding) }, "BlobBindingConflict")
        XCTAssertEqual(refusal(400) { try alice.deleteBlob(blob.id) }, "BlobBound")
        // The message itself reached bob, and the blob with it.
        XCTAssertEqual(try bob.read(conversation).map(\.seq), [try XCTUnwrap(sent["seq"]?.integer)])
        XCTAssertEqual(try bob.api.getBlob(blob.id, device: bob.device.deviceID), blob.bytes)
    }

    func testDeletionReturnsTheQuotaAndKeepsSharedContent() throws {
        let (alice, conversation) = try solo()
        let (bob, _) = try enrolled()
        let reserved = try prepare(alice, conversation, BlobFixture.randomBytes(6000))
        let stored = try uploaded(alice, conversation, BlobFixture.randomBytes(7000))
        XCTAssertEqual(try usage(alice)["usedBytes"], 7000)
        XCTAssertEqual(try usage(alice)["reservedBytes"], 6000)
        XCTAssertEqual(refusal(400) { try bob.deleteBlob(stored.id) }, "BlobNotFound")
        let deleted = try alice.deleteBlob(stored.id)
        XCTAssertEqual(deleted["blobId"]?.uuid, stored.id)
        try alice.deleteBlob(reserved.id)
        XCTAssertEqual(try usage(alice), ["usedBytes": 0, "reservedBytes": 0, "quotaBytes": 524_288_000, "blobCount": 0,
                                          "liveUnboundCount": 0])
        XCTAssertFalse(try self.stored(stored.bytes))
        XCTAssertEqual(refusal(400) { try alice.deleteBlob(stored.id) }, "BlobNotFound")
        XCTAssertEqual(refusal(400) { try alice.api.uploadBlob(reserved.bytes, device: alice.device.deviceID, ticket: reserved.ticket) },
                       "UploadTicketNotFound")
        XCTAssertEqual(refusal(400) { try self.prepare(alice, conversation, reserved.bytes, id: reserved.id) }, "BlobAlreadyExists")

        // Two blobs with the same bytes share one file, which stays until neither stores it.
        let bytes = BlobFixture.randomBytes(3000)
        let one = try uploaded(alice, conversation, bytes)
        let two = try uploaded(alice, conversation, bytes)
        try alice.deleteBlob(one.id)
        XCTAssertTrue(try self.stored(bytes))
        XCTAssertEqual(try alice.api.getBlob(two.id, device: alice.device.deviceID), bytes)
        try alice.deleteBlob(two.id)
        XCTAssertFalse(try self.stored(bytes))

        // The orphan sweep (v1's BLOB_DIR sweep) keeps the file of a stored chat blob, however old.
        let kept = try uploaded(alice, conversation, BlobFixture.randomBytes(1500))
        let directory = try BlobDirectory(root: try service.blobDirectory)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)],
                                              ofItemAtPath: directory.path(for: HashAlgorithm.sha256.hash(kept.bytes)))
        let reclaimer = BlobReclaimer(store: DeliveryStore(database: try service.app.database), blobs: directory, log: try service.app.log)
        _ = try BlobFileSweep(reclaimer: reclaimer, now: { Date() }).purgeBatch(createdBefore: Date(), limit: 100)
        XCTAssertTrue(try self.stored(kept.bytes))
    }

    /// The store's binding of a metadata avatar (`setMetadataAvatar`, which the metadata
    /// transitions call): an uploaded `metadata` blob of the signer, then readable by every
    /// participant's device; carried to later versions; replaced, gone.
    func testMetadataAvatarBindsToTheConversationsParticipants() throws {
        let (alice, bob, _, conversation) = try pairWithIdentity()
        let (carol, _) = try enrolled()
        let store = DeliveryStore(database: try service.app.database)
        func set(_ avatar: Prepared?, version: UInt64, by did: String? = nil, sha256: [UInt8]? = nil) throws {
            try store.chat { tx in
                try tx.setMetadataAvatar(avatar.map { ChatBlobBinding(blobID: $0.id, sha256: sha256 ?? HashAlgorithm.sha256.hash($0.bytes),
                                                                      size: Int64($0.bytes.count), purpose: "metadata") },
                                         conversation: conversation, metadataVersion: version,
                                         did: did ?? alice.device.did.rawValue, now: Self.clock.now)
            }
        }
        func code(_ body: () throws -> Void) -> String? {
            do { try body() } catch let refusal as ChatRefusal { return refusal.code.rawValue } catch { return "\(error)" }
            return nil
        }
        let avatar = try uploaded(alice, conversation, BlobFixture.randomBytes(2500), purpose: "metadata")
        let attachment = try uploaded(alice, conversation, BlobFixture.randomBytes(2500))
        XCTAssertEqual(code { try set(avatar, version: 2, sha256: [UInt8](repeating: 0, count: 32)) }, "InvalidMetadataSnapshot")
        XCTAssertEqual(code { try set(avatar, version: 2, by: bob.device.did.rawValue) }, "InvalidMetadataSnapshot")
        XCTAssertEqual(code { try set(attachment, version: 2) }, "InvalidMetadataSnapshot")
        XCTAssertEqual(refusal(404) { try bob.api.getBlob(avatar.id, device: bob.device.deviceID) }, "BlobNotFound")

        try set(avatar, version: 2)
        XCTAssertEqual(try status(avatar.id), "bound")
        XCTAssertEqual(try bob.api.getBlob(avatar.id, device: bob.device.deviceID), avatar.bytes)
        XCTAssertEqual(refusal(404) { try carol.api.getBlob(avatar.id, device: carol.device.deviceID) }, "BlobNotFound")
        XCTAssertEqual(refusal(400) { try alice.deleteBlob(avatar.id) }, "BlobBound")
        XCTAssertEqual(refusal(400) { try self.send(alice, conversation, binding: avatar.binding) }, "BlobBindingConflict")
        // A later snapshot carrying the same avatar (any member may re-encrypt it) keeps it.
        try set(avatar, version: 3, by: bob.device.did.rawValue)
        XCTAssertEqual(try bob.api.getBlob(avatar.id, device: bob.device.deviceID), avatar.bytes)
        // A snapshot without it: unreadable at once, its bytes gone with the next maintenance pass.
        try set(nil, version: 4)
        XCTAssertEqual(refusal(404) { try bob.api.getBlob(avatar.id, device: bob.device.deviceID) }, "BlobNotFound")
        try service.app.runMaintenance()
        XCTAssertEqual(try status(avatar.id), "ended")
        XCTAssertFalse(try stored(avatar.bytes))
    }

    func testAvatarSetByAMetadataTransitionIsCarriedByCommitsAndReplaced() throws {
        let (alice, bob, bobIdentity, conversation) = try pairWithIdentity()
        let (carol, _) = try enrolled()
        let first = BlobFixture.randomBytes(4000)
        try alice.setAvatar(conversation, bytes: first, mimeType: "image/png", width: 64, height: 64)
        let binding = try XCTUnwrap(try alice.state(conversation)["metadataSnapshot"]?["avatarBinding"])
        let firstID = try XCTUnwrap(binding["blobId"]?.uuid)
        XCTAssertEqual(try status(firstID), "bound")
        // bob decrypts the snapshot (the binding is in its AAD), then the avatar under its own AAD.
        XCTAssertEqual(try bob.avatar(conversation), first)
        XCTAssertEqual(refusal(404) { try carol.api.getBlob(firstID, device: carol.device.deviceID) }, "BlobNotFound")

        // A rename and a commit (a device of bob's added by recovery) carry it; the new device reads it.
        try alice.rename(conversation, title: "with a face")
        let (bob2, _) = try enrolled(bobIdentity)
        try bob2.requestLeaf(conversation)
        try alice.fulfil(try recovery(for: bob2, in: conversation, seenBy: alice))
        try join(bob2)
        XCTAssertEqual(try bob2.avatar(conversation), first)
        XCTAssertEqual(try bob.avatar(conversation), first)
        XCTAssertEqual(bob.conversations[conversation]?.title, "with a face")

        // Only an admin sets it; a member's upload stays unbound.
        XCTAssertEqual(refusal(400) { try bob.setAvatar(conversation, bytes: first, mimeType: "image/png", width: 1, height: 1) },
                       "AdminRequired")
        XCTAssertEqual(try usage(bob)["liveUnboundCount"], 1)

        // A new avatar replaces it: the old one is unreadable at once.
        let second = BlobFixture.randomBytes(5000)
        try alice.setAvatar(conversation, bytes: second, mimeType: "image/jpeg", width: 32, height: 32)
        XCTAssertEqual(try bob.avatar(conversation), second)
        XCTAssertEqual(refusal(404) { try bob.api.getBlob(firstID, device: bob.device.deviceID) }, "BlobNotFound")
        try service.app.runMaintenance()
        XCTAssertEqual(try status(firstID), "ended")
    }

    func testPreparationNeedsALeafCurrentCoordinatesAndQuota() throws {
        let (alice, aliceIdentity) = try enrolled()
        let conversation = try alice.create(inviting: []).id
        let (alice2, _) = try enrolled(aliceIdentity)
        let bytes = BlobFixture.randomBytes(100)
        let prior = try alice.coordinates(conversation)
        let blobs = try count("chat_blobs")

        XCTAssertEqual(refusal(400) { try self.prepare(alice2, conversation, bytes) }, "DeviceNotLeaf")
        try alice.rotate(conversation)
        XCTAssertEqual(refusal(400) {
            try alice.prepareBlob(.random(), in: conversation, at: prior, sha256: HashAlgorithm.sha256.hash(bytes), size: 100,
                                  mediaType: "image/png", plaintextSize: 84)
        }, "StaleCoordinates")
        var elsewhere = try alice.coordinates(conversation)
        elsewhere.conversationID = .random()
        XCTAssertEqual(refusal(400) {
            try alice.prepareBlob(.random(), in: elsewhere.conversationID, at: elsewhere, sha256: HashAlgorithm.sha256.hash(bytes),
                                  size: 100, mediaType: "image/png", plaintextSize: 84)
        }, "ConversationNotFound")
        XCTAssertEqual(refusal(400) {
            try alice.prepareBlob(.random(), in: conversation, at: try alice.coordinates(conversation), sha256: HashAlgorithm.sha256.hash(bytes),
                                  size: 100, mediaType: "image/png", plaintextSize: 85)
        }, "InvalidRequest")
        XCTAssertEqual(try count("chat_blobs"), blobs)

        // The account's quota (BLOB_QUOTA_BYTES here, below the contract's constant) counts what
        // is reserved: two 10 MiB blobs fit in 24 MiB, a third does not until one is deleted.
        let big = 10 << 20
        @discardableResult
        func prepareBig() throws -> ChatValue {
            try alice.prepareBlob(.random(), in: conversation, at: try alice.coordinates(conversation), sha256: [UInt8](repeating: 1, count: 32),
                                  size: big, mediaType: "image/heic", plaintextSize: big - 16)
        }
        let first = try prepareBig()
        try prepareBig()
        XCTAssertEqual(refusal(400) { try prepareBig() }, "BlobQuotaExceeded")
        try alice.deleteBlob(try XCTUnwrap(first["blobId"]?.uuid))
        try prepareBig()

        // At most 100 uploads wait unbound.
        let (carol, _) = try enrolled()
        let carolConversation = try carol.create(inviting: []).id
        for _ in 0..<100 { _ = try prepare(carol, carolConversation, bytes) }
        XCTAssertEqual(try usage(carol)["liveUnboundCount"], 100)
        XCTAssertEqual(refusal(400) { try self.prepare(carol, carolConversation, bytes) }, "BlobQuotaExceeded")
    }

    /// One quota and one store with v1's attachments: v1's bytes count for chat and chat's
    /// reservations for v1; identical content is one file.
    func testOneQuotaAndOneStoreWithV1Attachments() throws {
        let service = try service
        let flow = ChatFlow(service: service)
        let v1 = BlobFixture(service)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        let (device, _) = try enrolled(alice.identity)
        let conversation = try device.create(inviting: []).id

        let shared = BlobFixture.randomBytes(5 << 20)
        XCTAssertEqual(try v1.upload(shared, convo: convo, as: alice.identity).status, 200)
        XCTAssertEqual(try usage(device)["usedBytes"], UInt64(5 << 20))
        XCTAssertEqual(try usage(device)["blobCount"], 1)
        // The same bytes as a chat blob: stored once.
        let chat = try uploaded(device, conversation, shared)
        XCTAssertTrue(try stored(shared))
        XCTAssertEqual(try usage(device)["usedBytes"], UInt64(10 << 20))
        // 10 MiB used: 10 MiB more may be reserved, then v1 has 4 MiB left, and chat nothing.
        _ = try prepare(device, conversation, BlobFixture.randomBytes(10 << 20))
        XCTAssertEqual(try v1.upload(BlobFixture.randomBytes(5 << 20), convo: convo, as: alice.identity).error, "QuotaExceeded")
        XCTAssertEqual(try v1.upload(BlobFixture.randomBytes(4 << 20), convo: convo, as: alice.identity).status, 200)
        XCTAssertEqual(refusal(400) { try self.prepare(device, conversation, BlobFixture.randomBytes(100)) }, "BlobQuotaExceeded")
        // Deleting the chat blob keeps the file v1's row still uses.
        try device.deleteBlob(chat.id)
        XCTAssertTrue(try stored(shared))
        let v1Blob = try XCTUnwrap(try v1.database.query("SELECT blob_id FROM blobs WHERE size = $1", [Int64(5 << 20)]).first?.string(0))
        XCTAssertEqual(try v1.fetch(v1Blob, as: alice.identity).body, shared)
    }
}

/// The real time moved by a settable offset: the chat contract's lifetimes pass at once, while
/// the service's other clocks (signedAt freshness, tokens) keep real time.
final class ShiftedClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    func reset() { offset.withLock { $0 = 0 } }

    var closure: @Sendable () -> Date { { [self] in now } }
}
