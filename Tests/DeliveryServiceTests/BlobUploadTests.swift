@testable import DeliveryService
import Foundation
import Primitives
import TestSupport
import XCTest

/// uploadBlob and getBlob against the real server, PostgreSQL and a temporary BLOB_DIR.
final class BlobUploadTests: ServiceTestCase {
    struct Setup {
        let flow: ChatFlow
        let blobs: BlobFixture
        let alice: MLSTestUser
        let bob: MLSTestUser
        let carol: MLSTestUser
        let convo: String
    }

    /// Alice and Bob in one conversation; Carol in none.
    func makeSetup() throws -> Setup {
        let service = try service
        let flow = ChatFlow(service: service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)
        return Setup(flow: flow, blobs: BlobFixture(service), alice: alice, bob: bob, carol: carol, convo: convo)
    }

    func blobID(_ reply: ServiceHarness.Reply, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        XCTAssertEqual(reply.status, 200, "\(reply.json)", file: file, line: line)
        let blob = try XCTUnwrap(reply.json["blob"] as? [String: Any], file: file, line: line)
        return try XCTUnwrap(blob["blobId"] as? String, file: file, line: line)
    }

    /// HEAD over a raw socket (the test client expects a body after Content-Length): the status,
    /// the head and whatever followed it before the server closed.
    func head(_ blobID: String, as user: TestIdentity) throws -> (status: Int, head: String, body: String)? {
        let client = try BlobRawClient(port: try service.app.port, receiveTimeout: 5)
        let token = user.token(audience: ServiceHarness.serviceDID, nsid: BlobFixture.get)
        client.send(Array(("HEAD /xrpc/\(BlobFixture.get)?blobId=\(blobID) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(token)\r\nConnection: close\r\n\r\n").utf8))
        return client.readAll()
    }

    func test_fiftyMiB_roundTrip_keepsEveryByte_andStoresOneRowAndOneFile() throws {
        let setup = try makeSetup()
        let rowsBefore = try setup.blobs.rowCount
        let bytes = BlobFixture.randomBytes(50 << 20)
        let reply = try setup.blobs.upload(bytes, convo: setup.convo, as: setup.alice.identity, contentType: "application/x-catbird-encrypted")
        let id = try blobID(reply)
        XCTAssertEqual(id.count, 26)
        let blob = try XCTUnwrap(reply.json["blob"] as? [String: Any])
        XCTAssertEqual(blob["size"] as? Int, 50 << 20)
        XCTAssertEqual(blob["mimeType"] as? String, "application/x-catbird-encrypted")

        // Bob, a member who did not upload it, gets it back byte for byte.
        let fetched = try setup.blobs.fetch(id, as: setup.bob.identity)
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.header("Content-Type"), "application/x-catbird-encrypted")
        XCTAssertEqual(fetched.header("Content-Length"), String(50 << 20))
        XCTAssertEqual(fetched.body.count, bytes.count)
        XCTAssertEqual(HashAlgorithm.sha256.hash(fetched.body), HashAlgorithm.sha256.hash(bytes))

        // The row records the content's hash; the file sits at its content path.
        let row = try setup.blobs.database.query("SELECT sha256, size, owner_did, convo_id FROM blobs WHERE blob_id = $1", [id])
        XCTAssertEqual(try row.first?.bytes("sha256"), HashAlgorithm.sha256.hash(bytes))
        XCTAssertEqual(try row.first?.int64("size"), Int64(50 << 20))
        XCTAssertEqual(try row.first?.string("owner_did"), setup.alice.did)
        XCTAssertEqual(try row.first?.string("convo_id"), setup.convo)
        XCTAssertEqual(try setup.blobs.rowCount, rowsBefore + 1)
        let hex = BlobFixture.hex(HashAlgorithm.sha256.hash(bytes))
        XCTAssertTrue(setup.blobs.files.contains("\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"))
        XCTAssertFalse(setup.blobs.files.contains { $0.hasPrefix("tmp/") }, "no temporary file left")
    }

    func test_identicalContent_isStoredOnce_withTwoRows() throws {
        let setup = try makeSetup()
        let bytes = BlobFixture.randomBytes(100_000)
        let first = try blobID(try setup.blobs.upload(bytes, convo: setup.convo, as: setup.alice.identity))
        let second = try blobID(try setup.blobs.upload(bytes, convo: setup.convo, as: setup.bob.identity))
        XCTAssertNotEqual(first, second)
        let hex = BlobFixture.hex(HashAlgorithm.sha256.hash(bytes))
        XCTAssertEqual(setup.blobs.files.filter { $0.hasSuffix(hex) }.count, 1)
        XCTAssertEqual(try setup.blobs.fetch(second, as: setup.alice.identity).body, bytes)
    }

    func test_oneByteOverFiftyMiB_declared_isRefusedBeforeTheBody_andNothingIsStored() throws {
        let setup = try makeSetup()
        let rows = try setup.blobs.rowCount
        let port = try service.app.port
        let client = try BlobRawClient(port: port)
        let token = setup.alice.identity.token(audience: ServiceHarness.serviceDID, nsid: BlobFixture.upload)
        client.send(Array(("POST /xrpc/\(BlobFixture.upload)?convoId=\(setup.convo) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: \((50 << 20) + 1)\r\n\r\n").utf8))
        client.send(BlobFixture.randomBytes(64 << 10))
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(response.body.contains("BlobTooLarge"), response.body)
        XCTAssertEqual(try setup.blobs.rowCount, rows)
        XCTAssertTrue(setup.blobs.eventually { !setup.blobs.files.contains { $0.hasPrefix("tmp/") } })
    }

    func test_oneByteOverFiftyMiB_streamedChunked_isRefused_andNothingIsStored() throws {
        let setup = try makeSetup()
        let rows = try setup.blobs.rowCount
        let filesBefore = setup.blobs.files
        let client = try BlobRawClient(port: try service.app.port)
        let token = setup.alice.identity.token(audience: ServiceHarness.serviceDID, nsid: BlobFixture.upload)
        client.send(Array(("POST /xrpc/\(BlobFixture.upload)?convoId=\(setup.convo) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(token)\r\nTransfer-Encoding: chunked\r\n\r\n").utf8))
        // 50 MiB + 1 in 1 MiB chunks (the last holds the one byte too many); stop once answered.
        let piece = BlobFixture.randomBytes(1 << 20)
        let chunk = Array("100000\r\n".utf8) + piece + Array("\r\n".utf8)
        var sent = 0
        while sent < 50, !client.hasInput, client.send(chunk) { sent += 1 }
        if sent == 50, !client.hasInput { client.send(Array("1\r\nx\r\n0\r\n\r\n".utf8)) }
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(response.body.contains("BlobTooLarge") || response.body.contains("PayloadTooLarge"), response.body)
        XCTAssertEqual(try setup.blobs.rowCount, rows)
        XCTAssertTrue(setup.blobs.eventually { setup.blobs.files == filesBefore }, "\(setup.blobs.files)")
    }

    func test_clientClosingMidBody_leavesNoRowAndNoFile() throws {
        let setup = try makeSetup()
        let rows = try setup.blobs.rowCount
        let filesBefore = setup.blobs.files
        let client = try BlobRawClient(port: try service.app.port)
        let token = setup.alice.identity.token(audience: ServiceHarness.serviceDID, nsid: BlobFixture.upload)
        client.send(Array(("POST /xrpc/\(BlobFixture.upload)?convoId=\(setup.convo) HTTP/1.1\r\nHost: x\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Length: \(10 << 20)\r\n\r\n").utf8))
        XCTAssertTrue(client.send(BlobFixture.randomBytes(2 << 20)))
        // The upload is under way: its temporary file exists.
        XCTAssertTrue(setup.blobs.eventually { setup.blobs.files.contains { $0.hasPrefix("tmp/upload-") } }, "\(setup.blobs.files)")
        client.abort()
        XCTAssertTrue(setup.blobs.eventually { setup.blobs.files == filesBefore }, "\(setup.blobs.files)")
        XCTAssertEqual(try setup.blobs.rowCount, rows)
        // The server is fine afterwards.
        _ = try blobID(try setup.blobs.upload([1, 2, 3], convo: setup.convo, as: setup.alice.identity))
    }

    /// The value of one /metrics series, 0 when absent.
    func metric(_ series: String) throws -> Int {
        let text = String(decoding: try service.get(path: "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    func test_streamedUpload_isAuthenticatedFromTheHead_beforeAnyBody_andCounted() throws {
        let setup = try makeSetup()
        let unauthorized = "catbird_mls_requests_total{method=\"\(BlobFixture.upload)\",status=\"401\"}"
        let accepted = "catbird_mls_requests_total{method=\"\(BlobFixture.upload)\",status=\"200\"}"
        let before = (try metric(unauthorized), try metric(accepted))
        let client = try BlobRawClient(port: try service.app.port)
        client.send(Array(("POST /xrpc/\(BlobFixture.upload)?convoId=\(setup.convo) HTTP/1.1\r\nHost: x\r\n"
            + "Content-Length: \(10 << 20)\r\n\r\n").utf8))
        // Not one body byte sent: the answer comes from the head alone.
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 401)
        XCTAssertTrue(response.body.contains("AuthenticationRequired") || response.body.contains("Auth"), response.body)
        _ = try blobID(try setup.blobs.upload([7], convo: setup.convo, as: setup.alice.identity))
        XCTAssertEqual(try metric(unauthorized), before.0 + 1)
        XCTAssertEqual(try metric(accepted), before.1 + 1)
        XCTAssertFalse(setup.blobs.files.contains { $0.hasPrefix("tmp/") })
    }

    func test_nonMember_cannotUpload_orFetch() throws {
        let setup = try makeSetup()
        let rows = try setup.blobs.rowCount
        let refused = try setup.blobs.upload(BlobFixture.randomBytes(1000), convo: setup.convo, as: setup.carol.identity)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.error, "NotMember")
        XCTAssertEqual(try setup.blobs.rowCount, rows)

        let id = try blobID(try setup.blobs.upload(BlobFixture.randomBytes(1000), convo: setup.convo, as: setup.alice.identity))
        let fetched = try setup.blobs.fetch(id, as: setup.carol.identity)
        XCTAssertEqual(fetched.status, 403)
        XCTAssertEqual(fetched.error, "NotMember")
        XCTAssertEqual(try head(id, as: setup.carol.identity)?.status, 403)

        // Unknown or malformed ids, and a missing token.
        XCTAssertEqual(try setup.blobs.fetch(String(repeating: "a", count: 26), as: setup.alice.identity).error, "BlobNotFound")
        XCTAssertEqual(try setup.blobs.fetch("not-a-blob", as: setup.alice.identity).status, 404)
        let anonymous = try service.call(BlobFixture.get, query: [("blobId", id)])
        XCTAssertEqual(anonymous.status, 401)
        let unknownConvo = try setup.blobs.upload([1], convo: "abcdef", as: setup.alice.identity)
        XCTAssertEqual(unknownConvo.error, "ConvoNotFound")
    }

    func test_memberWhoLeft_cannotFetch() throws {
        let setup = try makeSetup()
        let id = try blobID(try setup.blobs.upload(BlobFixture.randomBytes(10), convo: setup.convo, as: setup.bob.identity))
        XCTAssertEqual(try setup.blobs.fetch(id, as: setup.alice.identity).status, 200)
        // As a removal commit records it (the commit itself is exercised elsewhere).
        try setup.blobs.database.execute(
            "UPDATE members SET left_at = now(), left_epoch = 1, left_reason = 'removed' WHERE convo_id = $1 AND did = $2",
            [setup.convo, setup.bob.did])
        XCTAssertEqual(try setup.blobs.fetch(id, as: setup.bob.identity).error, "NotMember")
    }

    func test_rangeRequests_andHead() throws {
        let setup = try makeSetup()
        let bytes = BlobFixture.randomBytes(1000)
        let id = try blobID(try setup.blobs.upload(bytes, convo: setup.convo, as: setup.alice.identity, contentType: nil))
        let user = setup.bob.identity

        let middle = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=100-199")])
        XCTAssertEqual(middle.status, 206)
        XCTAssertEqual(middle.body, Array(bytes[100...199]))
        XCTAssertEqual(middle.header("Content-Range"), "bytes 100-199/1000")
        XCTAssertEqual(middle.header("Content-Length"), "100")
        XCTAssertEqual(middle.header("Content-Type"), "application/octet-stream")

        let open = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=990-")])
        XCTAssertEqual(open.status, 206)
        XCTAssertEqual(open.body, Array(bytes[990...]))
        let suffix = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=-5")])
        XCTAssertEqual(suffix.body, Array(bytes[995...]))
        XCTAssertEqual(suffix.header("Content-Range"), "bytes 995-999/1000")
        let clamped = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=500-5000")])
        XCTAssertEqual(clamped.body, Array(bytes[500...]))

        let past = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=1000-")])
        XCTAssertEqual(past.status, 416)
        XCTAssertEqual(past.header("Content-Range"), "bytes */1000")
        // Several ranges or a malformed header: the whole blob.
        let several = try setup.blobs.fetch(id, as: user, headers: [("Range", "bytes=0-1,5-6")])
        XCTAssertEqual(several.status, 200)
        XCTAssertEqual(several.body, bytes)

        let head = try XCTUnwrap(try self.head(id, as: user))
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.head.lowercased().contains("content-length: 1000\r\n"), head.head)
        XCTAssertTrue(head.head.contains("Accept-Ranges: bytes"), head.head)
        XCTAssertTrue(head.body.isEmpty, "HEAD carries no content")
    }

    func test_badRequests_areRefused() throws {
        let setup = try makeSetup()
        let user = setup.alice.identity
        XCTAssertEqual(try setup.blobs.upload([], convo: setup.convo, as: user).status, 400, "empty body")
        XCTAssertEqual(try setup.blobs.upload([1], convo: setup.convo, as: user, contentType: "not a type").status, 400)
        XCTAssertEqual(try setup.blobs.upload([1], convo: setup.convo, as: user,
                                              contentType: "application/" + String(repeating: "x", count: 300)).status, 400)
        let getUpload = try service.call(BlobFixture.upload, as: user, query: [("convoId", setup.convo)])
        XCTAssertEqual(getUpload.status, 405)
        let noConvo = try service.call(BlobFixture.upload, as: user, rawBody: [1, 2])
        XCTAssertEqual(noConvo.status, 400)
    }

    func test_attachments_areLinkedInSendMessage_andBadIdsAreRefused() throws {
        let setup = try makeSetup()
        let first = try blobID(try setup.blobs.upload(BlobFixture.randomBytes(10), convo: setup.convo, as: setup.alice.identity))
        let second = try blobID(try setup.blobs.upload(BlobFixture.randomBytes(11), convo: setup.convo, as: setup.bob.identity))
        let elsewhere = try setup.flow.createConvo(setup.carol, with: [])
        let foreign = try blobID(try setup.blobs.upload(BlobFixture.randomBytes(12), convo: elsewhere, as: setup.carol.identity))

        func send(_ attachments: [String]) throws -> ServiceHarness.Reply {
            var group = try XCTUnwrap(setup.alice.groups[setup.convo])
            let message = try group.encrypt(Array("see attached".utf8))
            setup.alice.groups[setup.convo] = group
            return try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: [
                "convoId": setup.convo, "msgId": MessageID.next(), "epoch": Int(group.epoch),
                "ciphertext": MLSTestUser.bytes(message), "attachments": attachments,
            ])
        }
        let sent = try send([first, second])
        XCTAssertEqual(sent.status, 200, "\(sent.json)")
        let seq = try XCTUnwrap(sent.json["seq"] as? Int)
        let links = try setup.blobs.database.query(
            "SELECT blob_id FROM message_attachments WHERE convo_id = $1 AND seq = $2 ORDER BY blob_id", [setup.convo, Int64(seq)])
        XCTAssertEqual(try links.map { try $0.string("blob_id") }, [first, second].sorted())

        let lastSeq = try setup.flow.lastSeq(setup.alice, setup.convo)
        for (bad, reason) in [([String(repeating: "b", count: 26)], "unknown"), ([foreign], "another convo"),
                              (["short"], "malformed"), ([first, first], "twice"),
                              (Array(repeating: first, count: 17), "too many")] {
            let reply = try send(bad)
            XCTAssertEqual(reply.status, 400, reason)
            XCTAssertEqual(reply.error, "InvalidAttachment", reason)
        }
        XCTAssertEqual(try setup.flow.lastSeq(setup.alice, setup.convo), lastSeq, "refused messages took no seq")
    }
}
