import Foundation
import XCTest

/// registerDeviceToken and unregisterDeviceToken against hostile input (docs/push.md,
/// "Registration"): every malformed or unreachable token, subscription and endpoint is refused
/// with a 4xx before anything is stored.
final class PushRegistrationTests: PushTestCase {
    override class func makeFixture() throws -> PushFixture {
        // Endpoints on private addresses are refused here, as in production.
        try PushFixture(platforms: [.webPush, .fcm], extra: ["PUSH_ALLOW_PRIVATE": "0", "PUSH_MAX_DEVICES_PER_USER": "3"])
    }

    func register(_ user: MLSTestUser, _ body: [String: Any]) throws -> ServiceHarness.Reply {
        try service.call("blue.catbird.mls.registerDeviceToken", as: user.identity, json: body)
    }

    func web(_ endpoint: String, p256dh: String? = nil, auth: String = "AAAAAAAAAAAAAAAAAAAAAA", token: String? = nil) -> [String: Any] {
        // A valid P-256 point: the RFC 8291 example's user agent key.
        let key = p256dh ?? "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        return ["deviceId": "browser", "platform": "web", "pushToken": token ?? endpoint,
                "webPush": ["endpoint": endpoint, "p256dh": key, "auth": auth]]
    }

    func expect(_ reply: ServiceHarness.Reply, _ status: Int, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply.status, status, "\(reply.json)", file: file, line: line)
        XCTAssertEqual(reply.error, name, "\(reply.json)", file: file, line: line)
    }

    func testWebEndpoints_MustBeHTTPSOnPublicAddresses() throws {
        let user = ChatFlow(service: try service).user()
        let standIn = try XCTUnwrap(try fixture.webPush)
        for endpoint in [
            "http://push.example.com/x", "ftp://push.example.com/x", "https://127.0.0.1:\(standIn.port)/push/x",
            "https://localhost/push", "https://10.1.2.3/push", "https://[::1]/push", "https://169.254.169.254/latest/meta-data",
            "https://user@push.example.com/x", "https://" + String(repeating: "a", count: 2100) + ".example/",
            "not a url", "https://",
        ] {
            expect(try register(user, web(endpoint)), 400, "InvalidPushToken")
        }
        XCTAssertEqual(try deviceCount(user.did), 0)
    }

    func testWebSubscriptionKeys_AreChecked() throws {
        let user = ChatFlow(service: try service).user()
        // Refused on the keys, before the endpoint's name is looked up (it would not resolve).
        let endpoint = "https://push.invalid/never-reached"
        for body in [
            web(endpoint, p256dh: "BAAA"), // too short
            web(endpoint, p256dh: "B" + String(repeating: "A", count: 86)), // 65 bytes, not on the curve
            web(endpoint, p256dh: "not base64 !"),
            web(endpoint, auth: "AAAAAAAAAAAAAAAAAAAA"), // 15 bytes
            web(endpoint, auth: String(repeating: "A", count: 100)),
            web(endpoint, token: "https://elsewhere.example/"), // pushToken is not the endpoint
        ] {
            expect(try register(user, body), 400, "InvalidPushToken")
        }
        var missing = web(endpoint)
        missing["webPush"] = nil
        expect(try register(user, missing), 400, "InvalidPushToken")
    }

    func testDeviceIdsAndTokens_AreBounded() throws {
        let user = ChatFlow(service: try service).user()
        let token = "fcm:" + String(repeating: "t", count: 150)
        for deviceID in ["", String(repeating: "d", count: 129), "a/b", "a b", "dévice", "a\u{0}b"] {
            expect(try register(user, ["deviceId": deviceID, "platform": "android", "pushToken": token]), 400, "InvalidPushToken")
        }
        for bad in ["", String(repeating: "t", count: 4097), "has space", "tab\t", "quote\"", "ü"] {
            expect(try register(user, ["deviceId": "phone", "platform": "android", "pushToken": bad]), 400, "InvalidPushToken")
        }
        // A platform without credentials here, and one that does not exist.
        expect(try register(user, ["deviceId": "phone", "platform": "ios", "pushToken": String(repeating: "ab", count: 32)]),
               400, "PushNotConfigured")
        expect(try register(user, ["deviceId": "phone", "platform": "blackberry", "pushToken": token]), 400, "InvalidRequest")
        expect(try register(user, ["deviceId": "phone", "platform": "android", "pushToken": token, "pushEnvironment": "staging"]),
               400, "InvalidRequest")
        expect(try register(user, ["deviceId": "phone", "platform": "android", "pushToken": token,
                                   "deviceName": String(repeating: "n", count: 129)]), 400, "InvalidRequest")
        // Over the body limit before any parsing.
        let huge = try register(user, ["deviceId": "phone", "platform": "android", "pushToken": token,
                                       "deviceName": String(repeating: "n", count: 20_000)])
        XCTAssertEqual(huge.status, 413)
        XCTAssertEqual(try deviceCount(user.did), 0)
    }

    func testATokenBelongsToOneDevice_AndAUserHasAtMostTheLimit() throws {
        let flow = ChatFlow(service: try service)
        let user = flow.user(), other = flow.user()
        let token = "fcm:moving-" + UUID().uuidString
        XCTAssertEqual(try register(user, ["deviceId": "old", "platform": "android", "pushToken": token]).status, 200)
        // Registered again by another device (of another user): it moves.
        XCTAssertEqual(try register(other, ["deviceId": "new", "platform": "android", "pushToken": token]).status, 200)
        XCTAssertEqual(try deviceCount(user.did), 0)
        XCTAssertEqual(try deviceCount(other.did), 1)

        for index in 1...2 {
            XCTAssertEqual(try register(other, ["deviceId": "d\(index)", "platform": "android", "pushToken": "fcm:\(index)-\(UUID())"]).status,
                           200)
        }
        expect(try register(other, ["deviceId": "d3", "platform": "android", "pushToken": "fcm:3-\(UUID())"]), 409, "TooManyDevices")
        // A device already registered may change its token at the limit.
        XCTAssertEqual(try register(other, ["deviceId": "d2", "platform": "android", "pushToken": "fcm:again-\(UUID())"]).status, 200)

        let first = try service.call("blue.catbird.mls.unregisterDeviceToken", as: other.identity, json: ["deviceId": "d1"])
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.json["success"] as? Bool, true)
        let again = try service.call("blue.catbird.mls.unregisterDeviceToken", as: other.identity, json: ["deviceId": "d1"])
        XCTAssertEqual(again.json["success"] as? Bool, false)
        expect(try service.call("blue.catbird.mls.unregisterDeviceToken", as: other.identity, json: ["deviceId": "../x"]),
               400, "InvalidPushToken")
        XCTAssertEqual(try deviceCount(other.did), 2)
    }

    func testRegistrations_AreRateLimitedPerUser() throws {
        let user = ChatFlow(service: try service).user()
        var statuses: [Int] = []
        for index in 0..<30 {
            statuses.append(try register(user, ["deviceId": "same", "platform": "android", "pushToken": "fcm:\(index)"]).status)
        }
        XCTAssertTrue(statuses.prefix(20).allSatisfy { $0 == 200 }, "\(statuses)")
        XCTAssertTrue(statuses.contains(429), "\(statuses)")
    }
}
