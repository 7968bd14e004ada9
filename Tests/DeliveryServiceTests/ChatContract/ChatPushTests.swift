import ChatProtocol
import Foundation
import MLSClient
import TestSupport
import XCTest

/// updatePushToken and the chat contract's pushes (docs/chat.md, "Push"), against the APNs
/// stand-in: a chat device's token registered the app's way is pushed for another device's message
/// while it holds no event stream, and not while it does; the sender is never pushed.
final class ChatPushTests: PushTestCase {
    override class func makeFixture() throws -> PushFixture { try PushFixture(platforms: [.apns]) }

    static let nsid = "blue.catbird.chat.updatePushToken"

    /// A fresh APNs device token.
    func newToken() -> String { (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() }

    /// updatePushToken as the app calls it: `x-catbird-chat-device-id` names the device.
    func updatePushToken(_ identity: TestIdentity, device: ChatUUID?, _ json: [String: Any]) throws -> ServiceHarness.Reply {
        try service.call(Self.nsid, as: identity, json: json,
                         headers: device.map { [("x-catbird-chat-device-id", $0.description)] } ?? [])
    }

    func testAChatDevicesToken_IsPushedForMessagesWhileItHoldsNoStream() throws {
        let service = try service
        let standIn = try XCTUnwrap(try fixture.apns)
        let (alice, aliceID) = try service.enrolledChatDevice()
        let (bob, bobID) = try service.enrolledChatDevice()
        let (conversation, _) = try alice.create(inviting: [bobID.did.rawValue])
        try bob.accept(conversation)
        try alice.fulfil(try XCTUnwrap(try alice.inventory().recoveries.first { $0["requesterDeviceId"]?.uuid == bob.device.deviceID }))
        try bob.join(try XCTUnwrap(try bob.inventory().welcomes.first))

        let bobsPhone = newToken(), alicesPhone = newToken()
        let registered = try updatePushToken(bobID, device: bob.device.deviceID, ["token": bobsPhone.uppercased()])
        XCTAssertEqual(registered.status, 200, "\(registered.json)")
        XCTAssertEqual((registered.json["device"] as? [String: Any])?["deviceId"] as? String, bob.device.deviceID.description)
        XCTAssertEqual(try updatePushToken(aliceID, device: nil, ["token": alicesPhone]).status, 200,
                       "without the header: the account's active device")
        let rows = try service.namespace.database.query("SELECT device_id, platform, token FROM push_devices WHERE did = $1",
                                                        [bobID.did.rawValue])
        XCTAssertEqual(try rows.map { [try $0.string("device_id"), try $0.string("platform"), try $0.string("token")] },
                       [[bob.device.deviceID.description, "ios", bobsPhone]], "the push feature's row: (DID, device UUID)")

        // Two messages from alice: the first through its own transaction, the second group-committed.
        var entries: [ChatValue] = []
        for text in ["are you awake?", "ping"] { entries.append(try alice.send(conversation, text: text)) }
        let last = try XCTUnwrap(entries.last?["seq"]?.integer)
        let pushes = standIn.wait(for: "push", count: 1, timeout: 15) {
            $0["id"] as? String == bobsPhone && (($0["payload"] as? [String: Any])?["seq"] as? Int).map(UInt64.init) == last
        }
        XCTAssertEqual(pushes.count, 1, "bob's phone was woken for the last message")
        for push in standIn.pushes(to: bobsPhone) {
            let payload = try XCTUnwrap(push["payload"] as? [String: Any])
            let seq = try XCTUnwrap(payload["seq"] as? Int)
            let entry = try XCTUnwrap(entries.first { $0["seq"]?.integer == UInt64(seq) })
            let body = entry["signedRequest"]?["body"]
            XCTAssertEqual(payload["type"] as? String, "mlsMessage")
            XCTAssertEqual(payload["convoId"] as? String, conversation.description)
            XCTAssertEqual(payload["messageId"] as? String, body?["messageId"]?.uuid?.description)
            XCTAssertEqual((payload["ciphertext"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init),
                           body?["applicationMessage"]?["bytes"]?.bytes, "the PrivateMessage as stored")
            assertPrivate(payload)
        }
        XCTAssertEqual(standIn.pushes(to: alicesPhone).count, 0, "the sender's own device was pushed")

        // With its event stream open, bob's device is not pushed: the stream brings the message.
        let stream = try bob.subscribe(try bob.inventory())
        try waitForPresence(did: bobID.did.rawValue, device: bob.device.deviceID.description, present: true)
        let before = standIn.pushes(to: bobsPhone).count
        try alice.send(conversation, text: "you're online")
        var sawIt = false
        while !sawIt { sawIt = try stream.next().payload.type == ChatSchema.typePrefix + "messageAvailableEvent" }
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(standIn.pushes(to: bobsPhone).count, before, "a device with a live stream was pushed")
        assertNoProtocolErrors(standIn)
    }

    func testTheTokenIsChecked_Cleared_AndForgottenWithTheDevice() throws {
        let service = try service
        let (bob, bobID) = try service.enrolledChatDevice()
        let (other, _) = try service.enrolledChatDevice()
        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": "not hex"]).error, "InvalidRequest")
        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": newToken(), "deviceId": "x"]).error,
                       "InvalidRequest", "a field the lexicon does not declare")
        let foreign = try updatePushToken(bobID, device: other.device.deviceID, ["token": newToken()])
        XCTAssertEqual(foreign.status, 401)
        XCTAssertEqual(foreign.error, "DeviceNotRegistered", "another account's device")
        XCTAssertEqual(try deviceCount(bobID.did.rawValue), 0)

        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": newToken()]).status, 200)
        XCTAssertEqual(try deviceCount(bobID.did.rawValue), 1)
        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": NSNull()]).status, 200, "null clears")
        XCTAssertEqual(try deviceCount(bobID.did.rawValue), 0)
        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": newToken()]).status, 200)
        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, [:]).status, 200, "{} clears")
        XCTAssertEqual(try deviceCount(bobID.did.rawValue), 0)

        XCTAssertEqual(try updatePushToken(bobID, device: bob.device.deviceID, ["token": newToken()]).status, 200)
        try bob.revoke(bob.device.deviceID, generation: 1)
        XCTAssertEqual(try deviceCount(bobID.did.rawValue), 0, "revoking the device forgets its token")
        let revoked = try updatePushToken(bobID, device: bob.device.deviceID, ["token": newToken()])
        XCTAssertEqual(revoked.status, 401)
        XCTAssertEqual(revoked.error, "DeviceRevoked")
    }
}
