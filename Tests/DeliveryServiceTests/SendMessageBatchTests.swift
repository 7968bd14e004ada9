import Foundation
import HTTP
import MLS
import XCTest

/// sendMessage through the group-commit batcher over real HTTP: the token is used up in the
/// message's own transaction, whatever the answer, and concurrent senders get dense seqs.
final class SendMessageBatchTests: ServiceTestCase {
    static let nsid = "blue.catbird.mls.sendMessage"

    func sendBody(_ user: MLSTestUser, _ convoID: String, msgID: String = MessageID.next()) throws -> [UInt8] {
        var group = try XCTUnwrap(user.groups[convoID])
        let message = try group.encrypt(Array("hello".utf8))
        user.groups[convoID] = group
        return Array(try JSONSerialization.data(withJSONObject: [
            "convoId": convoID, "msgId": msgID, "epoch": Int(group.epoch), "ciphertext": MLSTestUser.bytes(message),
        ]))
    }

    func post(_ body: [UInt8], token: String) throws -> ServiceHarness.Reply {
        try service.call(Self.nsid, rawBody: body, headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")])
    }

    func test_aTokenUsedTwice_isRefused_evenWhenItsFirstRequestWasRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), mallory = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)

        // Stored, then replayed with a fresh msgId: 401, nothing stored.
        let token = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
        XCTAssertEqual(try post(try sendBody(alice, convo), token: token).status, 200)
        let before = try flow.lastSeq(alice, convo)
        let replayed = try post(try sendBody(alice, convo), token: token)
        XCTAssertEqual(replayed.status, 401)
        XCTAssertEqual(replayed.error, "BadJwt")
        XCTAssertEqual(try flow.lastSeq(alice, convo), before)

        // Refused by the store (not a member): the token is used up all the same.
        let outsider = mallory.identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
        var foreign = try JSONSerialization.jsonObject(with: Data(try sendBody(bob, convo))) as! [String: Any]
        foreign["msgId"] = MessageID.next()
        let body = Array(try JSONSerialization.data(withJSONObject: foreign))
        XCTAssertEqual(try post(body, token: outsider).error, "NotMember")
        XCTAssertEqual(try post(body, token: outsider).error, "BadJwt")

        // Refused before the store (malformed body): used up too.
        let early = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
        XCTAssertEqual(try post(Array("{}".utf8), token: early).status, 400)
        let again = try post(try sendBody(alice, convo), token: early)
        XCTAssertEqual(again.status, 401)
        XCTAssertEqual(try flow.lastSeq(alice, convo), before)

        // Refused for an epoch its PrivateMessage does not carry: used up, and the next message still goes through.
        let stale = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
        var wrongEpoch = try JSONSerialization.jsonObject(with: Data(try sendBody(alice, convo))) as! [String: Any]
        wrongEpoch["epoch"] = (wrongEpoch["epoch"] as! Int) + 5
        let refused = try post(Array(try JSONSerialization.data(withJSONObject: wrongEpoch)), token: stale)
        XCTAssertEqual(refused.status, 400)  // the PrivateMessage header says another epoch
        XCTAssertEqual(try post(try sendBody(alice, convo), token: stale).status, 401)
        XCTAssertEqual(try flow.send(alice, convo, "still fine").status, 200)
    }

    func test_readTokens_areUsedUpWithTheirRead_whateverItAnswers() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), mallory = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        try flow.send(alice, convo, "hi")
        func get(_ nsid: String, _ user: MLSTestUser, token: String, _ query: [(String, String)]) throws -> ServiceHarness.Reply {
            try service.call(nsid, query: query, headers: [("Authorization", "Bearer " + token)])
        }
        for (nsid, query) in [("blue.catbird.mls.getMessages", [("convoId", convo)]), ("blue.catbird.mls.getConvos", [])] {
            let token = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: nsid)
            XCTAssertEqual(try get(nsid, alice, token: token, query).status, 200, nsid)
            let replayed = try get(nsid, alice, token: token, query)
            XCTAssertEqual(replayed.status, 401, nsid)
            XCTAssertEqual(replayed.error, "BadJwt", nsid)
        }
        // Refused after the read's round trip (not a member) or before it (bad cursor): used up too.
        let outsider = mallory.identity.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.getMessages")
        XCTAssertEqual(try get("blue.catbird.mls.getMessages", mallory, token: outsider, [("convoId", convo)]).error, "NotMember")
        XCTAssertEqual(try get("blue.catbird.mls.getMessages", mallory, token: outsider, [("convoId", convo)]).error, "BadJwt")
        let cursor = alice.identity.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.getConvos")
        XCTAssertEqual(try get("blue.catbird.mls.getConvos", alice, token: cursor, [("cursor", "nope")]).error, "InvalidCursor")
        XCTAssertEqual(try get("blue.catbird.mls.getConvos", alice, token: cursor, []).error, "BadJwt")
    }

    func test_concurrentSendersIntoOneConvo_getDenseUniqueSeqs_overHTTP() throws {
        let flow = ChatFlow(service: try service)
        let members = (0..<4).map { _ in flow.user() }
        for member in members.dropFirst() { try flow.publishKeyPackage(member) }
        let convo = try flow.createConvo(members[0], with: Array(members.dropFirst()))
        for member in members.dropFirst() { try flow.join(member, convo) }
        let start = try flow.lastSeq(members[0], convo)
        let perSender = 25
        // Encrypted up front: each member's group state is its own.
        let bodies = try members.map { member in try (0..<perSender).map { _ in try sendBody(member, convo) } }
        let baseURL = try service.baseURL
        let seqs = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for (index, member) in members.enumerated() {
            let identity = member.identity, mine = bodies[index]
            group.enter()
            Thread.detachNewThread {
                let client = HTTPClient(timeout: 30, maxBodySize: 1 << 20, allowPrivateAddresses: true)
                for body in mine {
                    let token = identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
                    do {
                        let response = try client.send(method: "POST", baseURL + "/xrpc/" + Self.nsid,
                                                       headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                                       body: body)
                        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                        if response.status == 200, let seq = json?["seq"] as? Int {
                            seqs.withLock { $0.append(seq) }
                        } else {
                            failures.withLock { $0.append("\(response.status) \(String(decoding: response.body, as: UTF8.self))") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(seqs.value.sorted(), Array((start + 1)...(start + members.count * perSender)))
        // Every member reads every message, in seq order.
        XCTAssertEqual(try flow.sync(members[1], convo).count, members.count * perSender - perSender)
    }
}

/// A value shared between test threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value_: Value
    init(_ value: Value) { value_ = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value_) }
    var value: Value { withLock { $0 } }
}
