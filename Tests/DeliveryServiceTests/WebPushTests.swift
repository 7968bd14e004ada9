import Foundation
import XCTest

/// Web Push end to end (docs/push.md): the real service pushes to a stand-in push service that
/// decrypts every message with http_ece (RFC 8291) and checks its VAPID token with py_vapid
/// (RFC 8292).
final class WebPushTests: PushTestCase {
    override class func makeFixture() throws -> PushFixture { try PushFixture(platforms: [.webPush], extra: ["MQTT_PORT": "0"]) }

    func testAnMQTTSessionWhoseClientIdentifierIsTheDevice_KeepsItFromBeingPushed() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let relay = RelayTestUser(try service, user: bob)
        let session = try registerWeb(bob, device: relay.clientID)
        let mqtt = try relay.connect()
        XCTAssertEqual(try mqtt.subscribe("relay/g/\(convo)/m"), .grantedQoS1)
        try waitForPresence(did: bob.did, device: relay.clientID, present: true)
        XCTAssertEqual(try flow.send(alice, convo, "over MQTT").status, 200)
        XCTAssertNotNil(try mqtt.receive(timeout: 10), "the Session gets the message")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(standIn.pushes(to: session).count, 0, "a device with a live MQTT Session was pushed")
        mqtt.disconnect()
        try waitForPresence(did: bob.did, device: relay.clientID, present: false)
        XCTAssertEqual(try flow.send(alice, convo, "asleep now").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == session }.count, 1)
    }

    func testAMessage_WakesTheOtherMembersDevice_WithItsCiphertext_AndNotTheSendersOwn() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let bobs = try registerWeb(bob, device: "bob-laptop")
        let alices = try registerWeb(alice, device: "alice-laptop")

        let reply = try flow.send(alice, convo, "hello while you sleep")
        XCTAssertEqual(reply.status, 200)
        let seq = try XCTUnwrap(reply.json["seq"] as? Int)
        let push = try XCTUnwrap(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == bobs }.first)
        let payload = try XCTUnwrap(push["payload"] as? [String: Any])
        XCTAssertEqual(payload["type"] as? String, "mlsMessage")
        XCTAssertEqual(payload["convoId"] as? String, convo)
        XCTAssertEqual(payload["seq"] as? Int, seq)
        XCTAssertEqual(payload["messageId"] as? String, reply.json["messageId"] as? String)
        XCTAssertEqual(try decrypt(payload, as: bob, convo), "hello while you sleep")
        assertPrivate(payload)
        let headers = try XCTUnwrap(push["headers"] as? [String: String])
        XCTAssertEqual(headers["Urgency"], "high")
        XCTAssertEqual(headers["TTL"], "86400")
        XCTAssertEqual(headers["Topic"]?.count, 32)

        // A commit wakes Bob too, as a commit; Alice's own devices never.
        let update = try XCTUnwrap(alice.groups[convo]).update()
        XCTAssertEqual(try flow.commitGroupChange(alice, convo, update).status, 200)
        let commit = try XCTUnwrap(standIn.wait(for: "push", count: 2, timeout: 15) { $0["id"] as? String == bobs }.last)
        let commitPayload = try XCTUnwrap(commit["payload"] as? [String: Any])
        XCTAssertEqual(commitPayload["type"] as? String, "mlsCommit")
        XCTAssertNotNil(commitPayload["ciphertext"])
        XCTAssertEqual((try XCTUnwrap(commit["headers"] as? [String: String]))["Urgency"], "normal")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(standIn.pushes(to: alices).count, 0, "the sender's own device was pushed")
        XCTAssertEqual(standIn.pushes(to: bobs).count, 2)
        assertNoProtocolErrors(standIn)
        XCTAssertGreaterThanOrEqual(try service.app.metrics.push.sentCount(.web), 2)
    }

    func testAWelcome_WakesTheAddedUsersDevice() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), carol = flow.user()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let carols = try registerWeb(carol, device: "carol-phone")
        try flow.publishKeyPackage(carol)
        let convo = try flow.createConvo(alice, with: [carol])
        let push = try XCTUnwrap(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == carols }.first)
        let payload = try XCTUnwrap(push["payload"] as? [String: Any])
        XCTAssertEqual(payload["type"] as? String, "mlsWelcome")
        XCTAssertEqual(payload["convoId"] as? String, convo)
        XCTAssertNotNil(payload["ciphertext"], "a small Welcome rides along")
        assertPrivate(payload)
    }

    func testALiveSubscriptionNamingTheDevice_KeepsItFromBeingPushed_UntilItCloses() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let phone = try registerWeb(bob, device: "bob-phone")
        let desktop = try registerWeb(bob, device: "bob-desktop")
        let ticket = try service.call("blue.catbird.mls.getSubscriptionTicket", as: bob.identity,
                                      json: ["deviceId": "bob-desktop"])
        XCTAssertEqual(ticket.status, 200, "\(ticket.json)")
        var socket: EventStreamClient? = try EventStreamClient(port: try service.app.port, ticket: ticket.json["ticket"] as? String)
        XCTAssertEqual(socket?.handshake.status, 101)
        // The presence row is written by a thread of its own: wait until it is there.
        try waitForPresence(did: bob.did, device: "bob-desktop", present: true)

        XCTAssertEqual(try flow.send(alice, convo, "to the phone only").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == phone }.count, 1)
        XCTAssertEqual(try XCTUnwrap(socket).readEvents(1, where: EventsTestCase.isApplicationMessage).count, 1)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(standIn.pushes(to: desktop).count, 0, "the device with a live socket was pushed")

        socket = nil
        try waitForPresence(did: bob.did, device: "bob-desktop", present: false)
        XCTAssertEqual(try flow.send(alice, convo, "now to both").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == desktop }.count, 1)
    }

    func test429WithRetryAfter_IsRetried_And5xxToo() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let bobs = try registerWeb(bob, device: "bob-laptop")
        try standIn.command(["cmd": "script", "id": bobs, "answers": [["status": 429, "retry_after": "1"], ["status": 503]]])
        let retriedBefore = try service.app.metrics.push.retriedCount(.web)
        let started = Date()
        XCTAssertEqual(try flow.send(alice, convo, "eventually").status, 200)
        let pushes = standIn.wait(for: "push", count: 3, timeout: 20) { $0["id"] as? String == bobs }
        XCTAssertEqual(pushes.map { $0["status"] as? Int }, [429, 503, 201])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "Retry-After: 1 was not honoured")
        XCTAssertEqual(try decrypt(try XCTUnwrap(pushes.last?["payload"] as? [String: Any]), as: bob, convo), "eventually")
        XCTAssertGreaterThanOrEqual(try service.app.metrics.push.retriedCount(.web) - retriedBefore, 2)
    }

    func testGone_RemovesTheDeviceAndItsPushes() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let bobs = try registerWeb(bob, device: "bob-old-browser")
        try standIn.command(["cmd": "script", "id": bobs, "answers": [["status": 410]]])
        XCTAssertEqual(try flow.send(alice, convo, "to a dead subscription").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == bobs }.count, 1)
        try waitUntil(timeout: 10) { try self.deviceCount(bob.did) == 0 }
        XCTAssertEqual(try flow.send(alice, convo, "nobody left to wake").status, 200)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(standIn.pushes(to: bobs).count, 1)
        XCTAssertGreaterThanOrEqual(try service.app.metrics.push.tokensRemovedCount(.web), 1)
    }

    func testARedirectingEndpoint_IsNotFollowed_AndItsDeviceGoes() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let bobs = try registerWeb(bob, device: "bob-redirected")
        try standIn.command(["cmd": "script", "id": bobs, "answers": [["status": "redirect"]]])
        XCTAssertEqual(try flow.send(alice, convo, "go elsewhere").status, 200)
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 15) { $0["id"] as? String == bobs }.count, 1)
        try waitUntil(timeout: 10) { try self.deviceCount(bob.did) == 0 }
        XCTAssertEqual(standIn.pushes(to: "elsewhere").count, 0, "the redirect was followed")
    }

    func testAnEndpointThatNeverAnswers_TimesOut_AndOthersAreServed() throws {
        let (flow, alice, bob, convo) = try pair()
        let standIn = try XCTUnwrap(try fixture.webPush)
        let stuck = try registerWeb(bob, device: "bob-stuck")
        let fine = try registerWeb(bob, device: "bob-fine")
        try standIn.command(["cmd": "script", "id": stuck, "answers": [["status": "hang"]]])
        XCTAssertEqual(try flow.send(alice, convo, "one of two").status, 200)
        // The other device is served while the first request hangs; the hung one is retried after
        // PUSH_TIMEOUT (2 s) and then answered.
        XCTAssertEqual(standIn.wait(for: "push", count: 1, timeout: 10) { $0["id"] as? String == fine }.count, 1)
        let stuckPushes = standIn.wait(for: "push", count: 2, timeout: 20) { $0["id"] as? String == stuck }
        XCTAssertEqual(stuckPushes.map { $0["status"] as? String ?? String(describing: $0["status"]!) }, ["hang", "201"])
    }
}
