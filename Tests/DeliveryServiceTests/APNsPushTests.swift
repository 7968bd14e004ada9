import Foundation
import XCTest

/// APNs end to end (docs/push.md): the service pushes over HTTP/2 (libnghttp2, ALPN h2, our TLS and
/// epoll) to a stand-in built on the PyPI `h2` library, which checks the provider token's ES256
/// signature and claims, the path, every apns-* header and the payload, and answers as scripted.
final class APNsPushTests: PushTestCase {
    override class func makeFixture() throws -> PushFixture { try PushFixture(platforms: [.apns]) }

    var apns: PushStandIn { get throws { try XCTUnwrap(try fixture.apns) } }

    /// A fresh APNs device token (32 bytes, hex) registered for `user`'s `device`.
    func registerPhone(_ user: MLSTestUser, device: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let reply = try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: [
            "deviceId": device, "platform": "ios", "pushToken": token.uppercased(), "pushEnvironment": "production",
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)", file: file, line: line)
        return token
    }

    func testAlicesMessages_WakeBobsOfflineIPhone_OnceEach_OverOneConnection_AndNoOneElse() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let iphone = try registerPhone(bob, device: "bob-iphone")
        let mac = try registerPhone(bob, device: "bob-mac")
        let alices = try registerPhone(alice, device: "alice-iphone")
        // Bob's Mac holds a socket for every conversation: it gets the messages there, not pushed.
        let ticket = try service.call("blue.catbird.mls.getSubscriptionTicket", as: bob.identity, json: ["deviceId": "bob-mac"])
        let socket = try EventStreamClient(port: try service.app.port, ticket: ticket.json["ticket"] as? String)
        XCTAssertEqual(socket.handshake.status, 101)
        try waitUntil(timeout: 10) { try self.presenceCount(bob.did, "bob-mac") > 0 }
        let connectionsBefore = standIn.events("connection").count

        var sent: [Int: String] = [:]
        for index in 0..<5 {
            let text = "message \(index) for a sleeping phone"
            let reply = try flow.send(alice, convo, text)
            XCTAssertEqual(reply.status, 200)
            sent[try XCTUnwrap(reply.json["seq"] as? Int)] = text
        }
        let last = try XCTUnwrap(sent.keys.max())
        let pushes = standIn.wait(for: "push", count: 1, timeout: 15) {
            $0["id"] as? String == iphone && (($0["payload"] as? [String: Any])?["seq"] as? Int) == last
        }
        XCTAssertEqual(pushes.count, 1, "the last message was pushed")
        Thread.sleep(forTimeInterval: 0.5)
        let received = standIn.pushes(to: iphone)
        let seqs = received.compactMap { ($0["payload"] as? [String: Any])?["seq"] as? Int }
        XCTAssertEqual(seqs.count, Set(seqs).count, "a message pushed twice: \(seqs)")
        XCTAssertTrue(received.count >= 1 && received.count <= 5, "one push per message, or fewer coalesced: \(seqs)")
        for push in received {
            let payload = try XCTUnwrap(push["payload"] as? [String: Any])
            let seq = try XCTUnwrap(payload["seq"] as? Int)
            XCTAssertEqual(try decrypt(payload, as: bob, convo), sent[seq])
            XCTAssertEqual(payload["type"] as? String, "mlsMessage")
            XCTAssertEqual(payload["convoId"] as? String, convo)
            assertPrivate(payload)
            let headers = try XCTUnwrap(push["headers"] as? [String: String])
            XCTAssertEqual(headers[":path"], "/3/device/" + iphone)
            XCTAssertEqual(headers["apns-priority"], "10")
            XCTAssertEqual(headers["apns-collapse-id"]?.count, 32)
            XCTAssertEqual(push["status"] as? Int, 200)
        }
        XCTAssertEqual(standIn.pushes(to: mac).count, 0, "the device with a live socket was pushed")
        XCTAssertEqual(standIn.pushes(to: alices).count, 0, "the sender's own device was pushed")
        assertNoProtocolErrors(standIn)
        // One multiplexed connection, one provider token.
        XCTAssertLessThanOrEqual(standIn.events("connection").count - connectionsBefore, 1)
        XCTAssertEqual(Set(received.compactMap { $0["iat"] as? Int }).count, 1)
        XCTAssertGreaterThanOrEqual(try service.app.metrics.push.sentCount(.ios), UInt64(received.count))
        _ = socket
    }

    func testUnregistered_AndBadDeviceToken_RemoveTheToken() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let gone = try registerPhone(bob, device: "bob-old-iphone")
        let bad = try registerPhone(bob, device: "bob-wrong-env")
        try standIn.command(["cmd": "script", "id": gone, "answers": [["status": 410]]])
        try standIn.command(["cmd": "script", "id": bad, "answers": [["status": 400, "reason": "BadDeviceToken"]]])
        XCTAssertEqual(try flow.send(alice, convo, "anyone there?").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == gone }.count, 1)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == bad }.count, 1)
        try waitUntil(timeout: 10) { try self.deviceCount(bob.did) == 0 }
        XCTAssertEqual(try flow.send(alice, convo, "no one").status, 200)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(standIn.pushes(to: gone).count + standIn.pushes(to: bad).count, 2)
        XCTAssertGreaterThanOrEqual(try service.app.metrics.push.tokensRemovedCount(.ios), 2)
    }

    func test429WithRetryAfter_500_AndAnExpiredProviderToken_AreRetried() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let iphone = try registerPhone(bob, device: "bob-iphone")
        try standIn.command(["cmd": "script", "id": iphone, "answers": [
            ["status": 429, "retry_after": "1"], ["status": 500], ["status": 403, "reason": "ExpiredProviderToken"],
        ]])
        let started = Date()
        XCTAssertEqual(try flow.send(alice, convo, "persistent").status, 200)
        let pushes = standIn.wait(for: "push", count: 4, timeout: 20) { $0["id"] as? String == iphone }
        XCTAssertEqual(pushes.map { $0["status"] as? Int }, [429, 500, 403, 200])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "Retry-After: 1 was not honoured")
        XCTAssertEqual(try decrypt(try XCTUnwrap(pushes.last?["payload"] as? [String: Any]), as: bob, convo), "persistent")
    }

    func testAnAPNsThatNeverAnswers_TimesOut_WhileOthersAreServed() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let stuck = try registerPhone(bob, device: "bob-stuck")
        let fine = try registerPhone(bob, device: "bob-fine")
        try standIn.command(["cmd": "script", "id": stuck, "answers": [["status": "hang"]]])
        XCTAssertEqual(try flow.send(alice, convo, "one of two").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 10) { $0["id"] as? String == fine }.count, 1)
        // The hung stream is reset at PUSH_TIMEOUT (2 s) and the push retried on the same connection.
        let stuckPushes = standIn.wait(for: "push", count: 2, timeout: 20) { $0["id"] as? String == stuck }
        XCTAssertEqual(stuckPushes.count, 2)
        XCTAssertEqual(stuckPushes.last?["status"] as? Int, 200)
    }

    func testALostOrClosingConnection_IsReplaced() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let iphone = try registerPhone(bob, device: "bob-iphone")
        XCTAssertEqual(try flow.send(alice, convo, "first").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == iphone }.count, 1)
        for (command, text) in [("goaway", "after goaway"), ("drop", "after a drop")] {
            let connections = standIn.events("connection").count
            try standIn.command(["cmd": command])
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertEqual(try flow.send(alice, convo, text).status, 200)
            let push = standIn.wait(for: "push", count: 1, timeout: 15) {
                $0["id"] as? String == iphone && $0["status"] as? Int == 200 && (try? self.decrypt($0["payload"] as? [String: Any] ?? [:], as: bob, convo)) == text
            }
            XCTAssertEqual(push.count, 1, "delivered \(text)")
            XCTAssertEqual(standIn.events("connection").count, connections + 1, "a new connection after \(command)")
        }
    }

    func testAMessageTooLargeForAPNs_IsPushedWithoutItsCiphertext() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try apns
        let iphone = try registerPhone(bob, device: "bob-iphone")
        let reply = try flow.send(alice, convo, String(repeating: "long ", count: 700))
        XCTAssertEqual(reply.status, 200)
        let push = try XCTUnwrap(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == iphone }.first)
        let payload = try XCTUnwrap(push["payload"] as? [String: Any])
        XCTAssertNil(payload["ciphertext"], "over 4 KB: the app fetches it")
        XCTAssertEqual(payload["seq"] as? Int, reply.json["seq"] as? Int)
        XCTAssertLessThanOrEqual(push["size"] as? Int ?? 9999, 4096)
    }

    func testIOSTokens_MustBeHexOfAPlausibleLength() throws {
        let user = ChatFlow(service: try service).user()
        for token in ["", "abc", "zz" + String(repeating: "00", count: 31), String(repeating: "ab", count: 201), "0x" + String(repeating: "ab", count: 32),
                      String(repeating: "a", count: 63)] {
            let reply = try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: [
                "deviceId": "phone", "platform": "ios", "pushToken": token,
            ])
            XCTAssertEqual(reply.error, "InvalidPushToken", "\(token): \(reply.json)")
        }
        let environment = try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: [
            "deviceId": "phone", "platform": "ios", "pushToken": String(repeating: "ab", count: 32), "pushEnvironment": "beta",
        ])
        XCTAssertEqual(environment.error, "InvalidRequest")
    }
}

extension APNsPushTests {
    /// Two nodes deliver from one outbox at once: no push goes out twice, every device gets the
    /// newest message, and the nodes' counts add up to what APNs received.
    func testTwoNodesOnOneOutbox_NeverPushTwice() throws {
        let standIn = try apns
        let node = try service.startNode()
        defer { node.shutdown() }
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let members = (0..<6).map { _ in flow.user() }
        for member in members { try flow.publishKeyPackage(member) }
        let convo = try flow.createConvo(alice, with: members)
        for member in members { try flow.join(member, convo) }
        var tokens: [String] = []
        for (index, member) in members.enumerated() {
            for device in 0..<3 { tokens.append(try registerPhone(member, device: "m\(index)-d\(device)")) }
        }
        let sentBefore = try service.app.metrics.push.sentCount(.ios) + node.metrics.push.sentCount(.ios)
        let receivedBefore = standIn.events("push").filter { $0["status"] as? Int == 200 }.count
        var last = 0
        for index in 0..<15 {
            let reply = try flow.send(alice, convo, "to everyone \(index)")
            XCTAssertEqual(reply.status, 200)
            last = try XCTUnwrap(reply.json["seq"] as? Int)
        }
        for token in tokens {
            XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 20) {
                $0["id"] as? String == token && (($0["payload"] as? [String: Any])?["seq"] as? Int) == last
            }.count, 1, "every device gets the newest message")
        }
        Thread.sleep(forTimeInterval: 1)
        for token in tokens {
            let seqs = standIn.pushes(to: token).compactMap { ($0["payload"] as? [String: Any])?["seq"] as? Int }
            XCTAssertEqual(seqs.count, Set(seqs).count, "pushed twice: \(seqs)")
        }
        let received = standIn.events("push").filter { $0["status"] as? Int == 200 }.count - receivedBefore
        let sent = try service.app.metrics.push.sentCount(.ios) + node.metrics.push.sentCount(.ios) - sentBefore
        XCTAssertEqual(UInt64(received), sent, "each push APNs received was sent by exactly one node")
        XCTAssertEqual(try service.namespace.database.query("SELECT 1 FROM push_outbox").count, 0)
    }
}
