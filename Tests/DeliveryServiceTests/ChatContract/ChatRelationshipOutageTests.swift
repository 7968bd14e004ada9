import ChatProtocol
import Dispatch
import Foundation
import HTTP
import MLSClient
import Synchronization
import TestSupport
import XCTest

/// Relationship records that change or cannot be read (docs/chat.md, "Consent and relationships"),
/// on a service whose records live 1 s, whose reads wait at most 2 s, with 4 workers: blocks
/// are read again when an invitee accepts, when a device is added, and (from the cache) when a
/// message is sent; a PDS that never answers costs its users a 503 in time and nobody else a worker.
final class ChatRelationshipOutageTests: ChatContractTestCase {
    override class var environment: [String: String] {
        ["CHAT_RELATIONSHIP_TIMEOUT": "2", "CHAT_RELATIONSHIP_CACHE": "1", "WORKER_THREADS": "4"]
    }

    func testBlocksAreReadAgain_OnAcceptance_Fulfilment_AndSending() throws {
        let pds = try service.pds
        let (alice, aliceID) = try enrolled()
        let (bob, bobID) = try enrolled()
        let (carol, carolID) = try enrolled()
        let (conversation, _) = try alice.create(inviting: [bobID.did.rawValue, carolID.did.rawValue])

        // bob blocks alice after the invitation: his acceptance is refused, and stores nothing.
        pds.block(bobID.did.rawValue, aliceID.did.rawValue)
        Thread.sleep(forTimeInterval: 1.2)
        let recoveries = try count("chat_recoveries")
        XCTAssertEqual(refusal(400) { try bob.accept(conversation) }, "BlockedRelationship")
        XCTAssertEqual(try count("chat_recoveries"), recoveries)
        XCTAssertEqual(try bob.state(conversation)["participants"]?.array?.first { $0["userDid"]?.text == bobID.did.rawValue }?["status"]?.text,
                       "pending")

        // carol accepts; then alice blocks her before adding her device.
        try carol.accept(conversation)
        pds.block(aliceID.did.rawValue, carolID.did.rawValue)
        Thread.sleep(forTimeInterval: 1.2)
        let leaves = try count("chat_leaves")
        XCTAssertEqual(refusal(400) { try alice.fulfil(try recovery(for: carol, in: conversation, seenBy: alice)) }, "BlockedRelationship")
        XCTAssertEqual(try count("chat_leaves"), leaves, "no device added")

        // Without those blocks, carol joins; then she blocks alice and alice's messages stop, as soon
        // as the cache has the new record (sending never waits for a PDS).
        pds.clear(aliceID.did.rawValue, LoopbackPDS.blockCollection)
        Thread.sleep(forTimeInterval: 1.2)
        try alice.fulfil(try recovery(for: carol, in: conversation, seenBy: alice))
        try join(carol)
        try alice.send(conversation, text: "hi carol")
        pds.block(carolID.did.rawValue, aliceID.did.rawValue)
        Thread.sleep(forTimeInterval: 1.2)
        var refused: String?
        let deadline = Date().addingTimeInterval(10)
        while refused == nil, deadline.timeIntervalSinceNow > 0 {
            do { try alice.send(conversation, text: "still there?") } catch { refused = ChatAPI.code(of: error) }
        }
        XCTAssertEqual(refused, "BlockedRelationship")
        XCTAssertEqual(refusal(400) { try alice.publishTyping(conversation) }, "BlockedRelationship")
    }

    func testAHangingPDS_Costs503InTime_AndHoldsNoWorker() throws {
        let service = try service
        let hanging = try LoopbackPDS(hanging: true)
        defer { hanging.stop() }
        let (alice, _) = try enrolled()
        let (bob, _) = try enrolled()
        let dave = service.makeUser()
        let conversations = try count("chat_conversations")

        // 40 invitations of accounts whose PDS never answers, at once, with 4 workers.
        let nsid = ChatAPI.nsid("createConversation")
        let bodies = try (0..<40).map { _ in
            ChatJSON.render(try alice.creationRequest(inviting: [service.makeUser(pds: hanging).did.rawValue]).input(for: nsid))
        }
        let tokens = try bodies.map { _ in try alice.api.token(nsid) }
        let url = service.baseURL + "/xrpc/" + nsid
        // Another user's requests, made ready beforehand: his devices, and an invitation whose PDS answers.
        let devicesURL = service.baseURL + "/xrpc/" + ChatAPI.nsid("getOwnDevices") + "?actorDeviceId=" + bob.device.deviceID.description
        let devicesTokens = try (0..<3).map { _ in try bob.api.token(ChatAPI.nsid("getOwnDevices")) }
        let honestBody = ChatJSON.render(try bob.creationRequest(inviting: [dave.did.rawValue]).input(for: nsid))
        let honestToken = try bob.api.token(nsid)
        let http = HTTPClient(timeout: 30, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        let replies = Mutex<[(status: Int, error: String?, retryAfter: String?, seconds: Double, finished: Date)]>([])
        let honest = Mutex<[Date]>([])
        let started = Date()
        runOnThreads(bodies.count + 1) { index in
            guard index < bodies.count else {
                Thread.sleep(forTimeInterval: 0.5)
                for token in devicesTokens where (try? http.send(method: "GET", devicesURL, headers: [("Authorization", "Bearer " + token)]))?.status == 200 {
                    honest.withLock { $0.append(Date()) }
                }
                let created = try? http.send(method: "POST", url, headers: [("Authorization", "Bearer " + honestToken),
                                                                            ("Content-Type", "application/json")], body: honestBody)
                if created?.status == 200 { honest.withLock { $0.append(Date()) } }
                return
            }
            let begin = Date()
            guard let response = try? http.send(method: "POST", url, headers: [("Authorization", "Bearer " + tokens[index]),
                                                                                ("Content-Type", "application/json")], body: bodies[index]) else { return }
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            replies.withLock { $0.append((response.status, json?["error"] as? String, response.header("Retry-After"),
                                          Date().timeIntervalSince(begin), Date())) }
        }
        let answered = replies.withLock { $0 }
        XCTAssertEqual(answered.count, 40)
        for reply in answered {
            XCTAssertEqual(reply.status, 503)
            XCTAssertEqual(reply.error, "RelationshipPolicyUnavailable")
            XCTAssertNotNil(reply.retryAfter)
            XCTAssertGreaterThanOrEqual(reply.seconds, 1.9, "answered before the records' time was up")
            XCTAssertLessThan(reply.seconds, 6, "CHAT_RELATIONSHIP_TIMEOUT is 2 s")
        }
        let served = honest.withLock { $0 }
        XCTAssertEqual(served.count, 4, "every honest request was served")
        let firstRefusal = try XCTUnwrap(answered.map(\.finished).min())
        XCTAssertLessThan(try XCTUnwrap(served.max()), firstRefusal,
                          "the honest requests were served while the 40 waited: no worker was held by them")
        print("hanging PDS: 40 invitations answered 503 after \(answered.map(\.seconds).min()!)–\(answered.map(\.seconds).max()!) s; "
              + "honest requests done \(served.map { $0.timeIntervalSince(started) }) s after the start")
        XCTAssertEqual(try count("chat_conversations"), conversations + 1, "only the honest invitation was stored")
    }
}
