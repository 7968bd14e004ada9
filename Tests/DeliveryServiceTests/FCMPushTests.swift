import Foundation
import XCTest

/// FCM HTTP v1 end to end (docs/push.md): the service gets its access token from the stand-in's
/// token endpoint with the service account's JWT bearer grant (RS256), caches it, and sends data
/// messages the stand-in checks as FCM does.
final class FCMPushTests: PushTestCase {
    override class func makeFixture() throws -> PushFixture { try PushFixture(platforms: [.fcm]) }

    func registerAndroid(_ user: MLSTestUser, device: String) throws -> String {
        let token = "fcm-" + UUID().uuidString.lowercased() + ":APA91b" + String(repeating: "x", count: 100)
        let reply = try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: [
            "deviceId": device, "platform": "android", "pushToken": token,
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        return token
    }

    func testMessages_AreDataMessagesWithTheCiphertext_UnderOneCachedAccessToken() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.fcm)
        let bobs = try registerAndroid(bob, device: "bob-pixel")
        let tokensBefore = standIn.events("token").count
        for text in ["first", "second", "third"] {
            let reply = try flow.send(alice, convo, text)
            XCTAssertEqual(reply.status, 200)
            let seq = try XCTUnwrap(reply.json["seq"] as? Int)
            let push = try XCTUnwrap(standIn.wait(for: "push", count: 1, timeout: 15) {
                $0["id"] as? String == bobs && ($0["data"] as? [String: String])?["seq"] == String(seq)
            }.first)
            let data = try XCTUnwrap(push["data"] as? [String: String])
            XCTAssertEqual(data["type"], "mlsMessage")
            XCTAssertEqual(data["convoId"], convo)
            XCTAssertEqual(try decrypt(data, as: bob, convo), text)
            assertPrivate(data)
            let android = try XCTUnwrap(push["android"] as? [String: Any])
            XCTAssertEqual(android["priority"] as? String, "HIGH")
            XCTAssertEqual(android["ttl"] as? String, "86400s")
            XCTAssertEqual((android["collapse_key"] as? String)?.count, 32)
        }
        XCTAssertLessThanOrEqual(standIn.events("token").count - tokensBefore, 1, "the access token was not reused")
        assertNoProtocolErrors(standIn, to: bobs)
        for event in standIn.events("token") { XCTAssertEqual((event["errors"] as? [Any])?.count, 0, "\(event)") }
    }

    func testARevokedAccessToken_IsReplaced_AndThePushStillGoes() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.fcm)
        let bobs = try registerAndroid(bob, device: "bob-tablet")
        XCTAssertEqual(try flow.send(alice, convo, "before").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == bobs }.count, 1)
        let tokens = standIn.events("token").count
        try standIn.command(["cmd": "revoke"])
        XCTAssertEqual(try flow.send(alice, convo, "after").status, 200)
        let pushes = standIn.wait(for: "push", count: 2, timeout: 15) { $0["id"] as? String == bobs }
        XCTAssertEqual(pushes.count, 2)
        XCTAssertEqual(try decrypt(try XCTUnwrap(pushes.last?["data"] as? [String: String]), as: bob, convo), "after")
        XCTAssertEqual(standIn.events("token").count, tokens + 1, "one new grant after the 401")
    }

    func testUnregistered_RemovesTheDevice_AndQuotaExceededIsRetried() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.fcm)
        let gone = try registerAndroid(bob, device: "bob-old-phone")
        let busy = try registerAndroid(bob, device: "bob-busy-phone")
        try standIn.command(["cmd": "script", "id": gone, "answers": [["status": 404, "reason": "UNREGISTERED"]]])
        try standIn.command(["cmd": "script", "id": busy, "answers": [["status": 429, "reason": "QUOTA_EXCEEDED", "retry_after": "1"]]])
        XCTAssertEqual(try flow.send(alice, convo, "hello").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 2, timeout: 15) { $0["id"] as? String == busy }.map { $0["status"] as? Int },
                       [429, 200])
        XCTAssertEqual(standIn.pushes(to: gone).count, 1)
        try waitUntil(timeout: 10) {
            try self.service.namespace.database.query("SELECT 1 FROM push_devices WHERE device_id = 'bob-old-phone'").isEmpty
        }
    }
}

extension PushTestCase {
    /// `decrypt` for an FCM data message (string values).
    func decrypt(_ data: [String: String], as user: MLSTestUser, _ convo: String) throws -> String {
        try decrypt(data as [String: Any], as: user, convo)
    }

    func assertPrivate(_ data: [String: String], file: StaticString = #filePath, line: UInt = #line) {
        assertPrivate(data as [String: Any], file: file, line: line)
    }
}
