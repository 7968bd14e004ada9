import Foundation
import MLS
import Primitives
import XCTest

/// A test case class sharing one service and the push stand-ins it pushes to (`PushFixture`).
class PushTestCase: XCTestCase {
    nonisolated(unsafe) private static var fixtures: [ObjectIdentifier: Result<PushFixture, Error>] = [:]

    /// The stand-ins and variables of this class's service.
    class func makeFixture() throws -> PushFixture { try PushFixture(platforms: [.webPush]) }

    override class func setUp() {
        super.setUp()
        fixtures[ObjectIdentifier(self)] = Result { try makeFixture() }
    }

    override class func tearDown() {
        if case .success(let fixture) = fixtures.removeValue(forKey: ObjectIdentifier(self)) { fixture.shutdown() }
        super.tearDown()
    }

    var fixture: PushFixture {
        get throws {
            guard let result = Self.fixtures[ObjectIdentifier(type(of: self))] else {
                throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "fixture not started"])
            }
            return try result.get()
        }
    }

    var service: ServiceHarness { get throws { try fixture.service } }

    /// Alice and Bob in one conversation, both with group state.
    func pair() throws -> (flow: ChatFlow, alice: MLSTestUser, bob: MLSTestUser, convo: String) {
        let chat = try ChatFlow(service: try service).chat(2)
        return (chat.flow, chat.users[0], chat.users[1], chat.convo)
    }

    /// A new Web Push subscription of the stand-in, registered for `user`'s device `deviceID`.
    @discardableResult
    func registerWeb(_ user: MLSTestUser, device deviceID: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let id = "sub-" + UUID().uuidString.prefix(8).lowercased()
        let subscription = try fixture.webPush!.command(["cmd": "subscribe", "id": id])
        let endpoint = try XCTUnwrap(subscription["endpoint"] as? String)
        let reply = try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: [
            "deviceId": deviceID, "platform": "web", "pushToken": endpoint, "deviceName": "test browser",
            "webPush": ["endpoint": endpoint, "p256dh": subscription["p256dh"]!, "auth": subscription["auth"]!],
        ])
        XCTAssertEqual(reply.status, 200, "\(reply.json)", file: file, line: line)
        return id
    }

    /// The text `user` reads from a push's `ciphertext` (its group state left as it was).
    func decrypt(_ payload: [String: Any], as user: MLSTestUser, _ convo: String) throws -> String {
        let base64 = try XCTUnwrap(payload["ciphertext"] as? String, "the push carries the ciphertext")
        let bytes = try XCTUnwrap(Data(base64Encoded: base64))
        var group = try XCTUnwrap(user.groups[convo])
        let (plaintext, _) = try group.decrypt(try MLSMessage(decoding: Array(bytes)))
        return String(decoding: plaintext, as: UTF8.self)
    }

    /// The stand-in saw no protocol error on any request (to `id`, when given).
    func assertNoProtocolErrors(_ standIn: PushStandIn, to id: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        for event in standIn.events("push") where id == nil || event["id"] as? String == id {
            XCTAssertEqual((event["errors"] as? [Any])?.count ?? 0, 0, "\(event)", file: file, line: line)
        }
    }

    func deviceCount(_ did: String) throws -> Int {
        try service.namespace.database.query("SELECT count(*) AS n FROM push_devices WHERE did = $1", [did])[0].int("n")
    }

    func presenceCount(_ did: String, _ device: String) throws -> Int {
        try service.namespace.database.query("SELECT count(*) AS n FROM push_presence WHERE did = $1 AND device_id = $2",
                                             [did, device])[0].int("n")
    }

    /// Waits until the presence row of `did#device` is there (or gone): a thread of its own writes it.
    func waitForPresence(did: String, device: String, present: Bool) throws {
        try waitUntil(timeout: 10) { (try self.presenceCount(did, device) > 0) == present }
    }

    func waitUntil(timeout: Double, _ condition: () throws -> Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("condition not met within \(timeout) s", file: file, line: line) }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A push payload reveals nothing beyond its fields: no DID (the sender's or anyone's), no name.
    func assertPrivate(_ payload: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        let allowed: Set<String> = ["type", "convoId", "seq", "epoch", "messageId", "ciphertext", "aps"]
        XCTAssertTrue(Set(payload.keys).isSubset(of: allowed), "\(payload.keys)", file: file, line: line)
        let text = String(decoding: (try? JSONSerialization.data(withJSONObject: payload)) ?? Data(), as: UTF8.self)
        XCTAssertFalse(text.contains("did:"), "a DID in \(text)", file: file, line: line)
        XCTAssertFalse(text.contains("test chat"), "the group's name in \(text)", file: file, line: line)
    }
}

/// The push stand-ins of a test class and the service configured to push to them.
final class PushFixture {
    enum Platform { case apns, webPush, fcm }

    let files: PushTestFiles
    let webPush: PushStandIn?
    let fcm: PushStandIn?
    let apns: PushStandIn?
    let service: ServiceHarness
    /// The variables `service` runs with (for a second node or a server process).
    let environment: [String: String]

    init(platforms: Set<Platform>, extra: [String: String] = [:]) throws {
        files = try PushTestFiles()
        webPush = platforms.contains(.webPush) ? try PushStandIn(.webPush) : nil
        fcm = platforms.contains(.fcm) ? try PushStandIn(.fcm) : nil
        apns = platforms.contains(.apns) ? try PushStandIn(.apns) : nil
        var environment = ["PUSH_TIMEOUT": "2", "PUSH_ALLOW_PRIVATE": "1"]
        let authorities = [webPush, fcm].compactMap { $0?.caFile }
        if !authorities.isEmpty { environment["PUSH_CA_FILE"] = try files.bundle(authorities, name: "push-ca.pem") }
        if let webPush {
            let key = try files.p256Key(name: "vapid.pem")
            let publicKey = try PEMPrivateKey.ecdsa(pem: Array(Data(contentsOf: URL(fileURLWithPath: key))), curve: .p256).publicKey
            try webPush.command(["cmd": "vapid", "key": Data(publicKey.uncompressed).base64URL])
            environment["VAPID_PRIVATE_KEY_FILE"] = key
            environment["VAPID_SUBJECT"] = "mailto:ops@mls.test"
        }
        if let fcm {
            let account = try fcm.command(["cmd": "account"])
            environment["FCM_SERVICE_ACCOUNT_FILE"] = try XCTUnwrap(account["file"] as? String)
            environment["FCM_URL"] = try XCTUnwrap(account["send_url"] as? String)
        }
        if let apns {
            let key = try apns.command(["cmd": "key"])
            environment["APNS_KEY_FILE"] = try XCTUnwrap(key["file"] as? String)
            environment["APNS_KEY_ID"] = try XCTUnwrap(key["key_id"] as? String)
            environment["APNS_TEAM_ID"] = try XCTUnwrap(key["team_id"] as? String)
            environment["APNS_TOPIC"] = try XCTUnwrap(key["topic"] as? String)
            environment["APNS_HOST"] = "https://127.0.0.1:\(apns.port)"
            environment["APNS_CA_FILE"] = apns.caFile
        }
        environment.merge(extra) { _, new in new }
        self.environment = environment
        service = try ServiceHarness(environment: environment)
    }

    func shutdown() {
        service.shutdown()
        for standIn in [webPush, fcm, apns] { standIn?.stop() }
    }
}

extension Data {
    /// base64url without padding.
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
