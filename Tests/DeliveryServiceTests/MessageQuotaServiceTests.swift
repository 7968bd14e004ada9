@testable import DeliveryService
import DeliveryStore
import Foundation
import HTTP
import MLS
import TestSupport
import XCTest

/// The storage-filling attack against the real server: one member sends as fast as it can, into
/// several conversations at once, through the group-committed path and the single-message path
/// (idempotency keys). MESSAGE_QUOTA_BYTES stops it exactly, with 413 QuotaExceeded for the
/// messages concerned only; the other members go on; retention gives the quota back.
final class MessageQuotaServiceTests: XCTestCase {
    static let nsid = "blue.catbird.mls.sendMessage"
    static let quota = 60_000

    func test_oneSenderFillingStorage_isStoppedExactly_andRetentionGivesTheQuotaBack() throws {
        let service = try ServiceHarness(environment: ["MESSAGE_QUOTA_BYTES": String(Self.quota), "RATE_LIMIT_ENABLED": "0",
                                                       "MESSAGE_TTL_DAYS": "0"])
        defer { service.shutdown() }
        let flow = ChatFlow(service: service)
        let mallory = flow.user(), bob = flow.user()
        var convos: [String] = []
        for _ in 0..<3 {
            try flow.publishKeyPackage(bob)
            let convo = try flow.createConvo(mallory, with: [bob])
            try flow.join(bob, convo)
            convos.append(convo)
        }

        // 60 messages of about 2 KiB, encrypted up front, sent by 6 threads at once.
        struct Send: Sendable { let body: [UInt8]; let charge: Int; let idempotent: Bool }
        var sends: [[Send]] = Array(repeating: [], count: 6)
        for index in 0..<60 {
            let convo = convos[index % convos.count]
            var group = try XCTUnwrap(mallory.groups[convo])
            let message = try group.encrypt([UInt8](repeating: UInt8(index), count: 2000 + index))
            mallory.groups[convo] = group
            var body: [String: Any] = ["convoId": convo, "msgId": MessageID.next(), "epoch": Int(group.epoch),
                                       "ciphertext": MLSTestUser.bytes(message)]
            let idempotent = index % 4 == 0
            if idempotent { body["idempotencyKey"] = "k\(index)" }
            sends[index % 6].append(Send(body: Array(try JSONSerialization.data(withJSONObject: body)),
                                         charge: message.encoded().count + 256, idempotent: idempotent))
        }
        let baseURL = service.baseURL, identity = mallory.identity, work = sends
        let refused = Locked<[Int]>([]), stored = Locked<[Int]>([]), odd = Locked<[String]>([])
        runOnThreads(6) { thread in
            let client = HTTPClient(timeout: 30, maxBodySize: 1 << 20, allowPrivateAddresses: true)
            for send in work[thread] {
                let token = identity.token(audience: ServiceHarness.serviceDID, nsid: Self.nsid)
                do {
                    let response = try client.send(method: "POST", baseURL + "/xrpc/" + Self.nsid,
                                                   headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                                   body: send.body)
                    let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                    switch (response.status, json?["error"] as? String) {
                    case (200, _): stored.withLock { $0.append(send.charge) }
                    case (413, "QuotaExceeded"): refused.withLock { $0.append(send.charge) }
                    case (let status, let error): odd.withLock { $0.append("\(status) \(error ?? "")") }
                    }
                } catch {
                    odd.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(odd.value, [])
        let store = DeliveryStore(database: service.app.database)
        let used = try store.messageUsage(did: mallory.identity.did)
        XCTAssertEqual(Int(used), stored.value.reduce(0, +), "charged exactly what was stored")
        XCTAssertLessThanOrEqual(used, Int64(Self.quota))
        XCTAssertFalse(refused.value.isEmpty, "the flood reached the quota")
        XCTAssertFalse(stored.value.isEmpty)
        for charge in refused.value { XCTAssertGreaterThan(Int(used) + charge, Self.quota, "a refused message would have fit") }
        let rows = try service.app.database.query("SELECT count(*) AS n FROM messages WHERE sender_did = $1 AND message_type = 'app'",
                                                  [mallory.did])
        XCTAssertEqual(try rows[0].int("n"), stored.value.count)

        // The quota is the sender's: the other member of the same conversations is not held back.
        XCTAssertEqual(try flow.send(bob, convos[0], "bob is fine").status, 200)
        let more = try flow.send(mallory, convos[0], String(repeating: "x", count: Self.quota))
        XCTAssertEqual(more.status, 413)
        XCTAssertEqual(more.error, "QuotaExceeded")

        // Retention purges mallory's messages: the quota comes back, and she can send again.
        try service.app.database.execute("UPDATE messages SET created_at = created_at - interval '40 days' WHERE sender_did = $1",
                                         [mallory.did])
        var settings = RetentionJob.Settings()
        settings.ttlDays = 30
        _ = RetentionJob(store: store, settings: settings, log: service.app.log).runOnce()
        XCTAssertEqual(try store.messageUsage(did: mallory.identity.did), 0)
        XCTAssertEqual(try flow.send(mallory, convos[1], "back in").status, 200)
    }
}
