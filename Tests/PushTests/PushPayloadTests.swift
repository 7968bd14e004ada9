import Basics
import Foundation
@testable import Push
import XCTest

/// Each platform's payload (docs/push.md): the fields, the ciphertext only when it fits, nothing
/// else; and how each service's answers are read.
final class PushPayloadTests: XCTestCase {
    func notification(kind: String = "mlsMessage", ciphertext size: Int) -> PushNotification {
        PushNotification(kind: kind, convoID: String(repeating: "ab", count: 16), seq: 42, epoch: 7, messageID: "01HMSG",
                         ciphertext: size > 0 ? [UInt8](repeating: 0x5a, count: size) : nil, timeToLive: 3600, createdAt: 1_800_000_000)
    }

    func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
    }

    func testAPNs_CarriesTheCiphertextWhileTheWholePayloadFits4KB() throws {
        let small = try APNsRequest(notification: notification(ciphertext: 2000), deviceToken: "abcd", topic: "blue.catbird.app", priority: 10)
        let payload = try json(small.payload)
        let aps = try XCTUnwrap(payload["aps"] as? [String: Any])
        XCTAssertEqual(aps["mutable-content"] as? Int, 1)
        XCTAssertNotNil(aps["alert"])
        XCTAssertEqual(payload["type"] as? String, "mlsMessage")
        XCTAssertEqual(payload["seq"] as? Int, 42)
        XCTAssertEqual(payload["epoch"] as? Int, 7)
        XCTAssertEqual(payload["messageId"] as? String, "01HMSG")
        XCTAssertEqual(Data(base64Encoded: try XCTUnwrap(payload["ciphertext"] as? String)).map(Array.init), [UInt8](repeating: 0x5a, count: 2000))
        XCTAssertEqual(small.path, "/3/device/abcd")
        let headers = Dictionary(uniqueKeysWithValues: small.headers)
        XCTAssertEqual(headers["apns-push-type"], "alert")
        XCTAssertEqual(headers["apns-topic"], "blue.catbird.app")
        XCTAssertEqual(headers["apns-priority"], "10")
        XCTAssertEqual(headers["apns-expiration"], "1800003600")
        XCTAssertEqual(headers["apns-collapse-id"]?.count, 32)

        // 3000 bytes of ciphertext are 4000 in base64: with the rest, over 4096. Left out.
        let large = try APNsRequest(notification: notification(ciphertext: 3000), deviceToken: "abcd", topic: "t", priority: 10)
        XCTAssertLessThanOrEqual(large.payload.count, APNsRequest.maxPayload)
        XCTAssertNil(try json(large.payload)["ciphertext"])
        XCTAssertEqual(try json(large.payload)["seq"] as? Int, 42)
        // The largest ciphertext that fits, fits exactly.
        let fitting = (1000...3100).last { size in
            (try? APNsRequest(notification: notification(ciphertext: size), deviceToken: "abcd", topic: "t", priority: 10))
                .map { (try? json($0.payload))?["ciphertext"] != nil } ?? false
        }!
        let edge = try APNsRequest(notification: notification(ciphertext: fitting), deviceToken: "abcd", topic: "t", priority: 10)
        XCTAssertLessThanOrEqual(edge.payload.count, 4096)
        XCTAssertGreaterThan(edge.payload.count, 4096 - 8)

        let commit = try APNsRequest(notification: notification(kind: "mlsCommit", ciphertext: 10), deviceToken: "abcd", topic: "t", priority: 10)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: commit.headers)["apns-priority"], "5", "a commit is not urgent")
    }

    func testFCM_IsADataMessageOfStrings_Within4KB() throws {
        let body = try json(try FCMMessage.body(notification(ciphertext: 1000), token: "tok"))
        let message = try XCTUnwrap(body["message"] as? [String: Any])
        XCTAssertEqual(message["token"] as? String, "tok")
        XCTAssertNil(message["notification"])
        let data = try XCTUnwrap(message["data"] as? [String: String])
        XCTAssertEqual(data["seq"], "42")
        XCTAssertEqual(data["epoch"], "7")
        XCTAssertNotNil(data["ciphertext"])
        let android = try XCTUnwrap(message["android"] as? [String: String])
        XCTAssertEqual(android["priority"], "HIGH")
        XCTAssertEqual(android["ttl"], "3600s")
        let big = try json(try FCMMessage.body(notification(ciphertext: 3500), token: "tok"))
        let bigData = try XCTUnwrap((big["message"] as? [String: Any])?["data"] as? [String: String])
        XCTAssertNil(bigData["ciphertext"])
        XCTAssertLessThanOrEqual(FCMMessage.size(bigData), 4096)
    }

    func testWebPush_PlaintextFitsOneRecord() throws {
        let fits = try json(try WebPushRequest.plaintext(notification(ciphertext: 2500)))
        XCTAssertNotNil(fits["ciphertext"])
        XCTAssertNil(fits["aps"])
        let over = try WebPushRequest.plaintext(notification(ciphertext: 3000))
        XCTAssertLessThanOrEqual(over.count, WebPushEncryption.maxPlaintext)
        XCTAssertNil(try json(over)["ciphertext"])
    }

    func testAnswers_AreReadAsTheServicesMeanThem() {
        let now = 1_800_000_000.0
        XCTAssertEqual(WebPushSender.outcome(status: 201, retryAfter: nil, now: now), .delivered)
        XCTAssertEqual(WebPushSender.outcome(status: 410, retryAfter: nil, now: now), .invalidToken(reason: "Gone"))
        XCTAssertEqual(WebPushSender.outcome(status: 404, retryAfter: nil, now: now), .invalidToken(reason: "NotFound"))
        XCTAssertEqual(WebPushSender.outcome(status: 429, retryAfter: "7", now: now), .retry(reason: "TooManyRequests", retryAfter: 7))
        XCTAssertEqual(WebPushSender.outcome(status: 503, retryAfter: "Fri, 15 Jan 2027 08:00:10 GMT", now: 1_800_000_000),
                       .retry(reason: "status_503", retryAfter: 10))
        XCTAssertEqual(WebPushSender.outcome(status: 413, retryAfter: nil, now: now), .rejected(reason: "status_413"))
        XCTAssertEqual(WebPushSender.outcome(.redirectRefused(status: 301)), .invalidToken(reason: "Redirect"))
        XCTAssertEqual(WebPushSender.outcome(.forbiddenAddress("x")), .invalidToken(reason: "ForbiddenAddress"))
        XCTAssertEqual(WebPushSender.outcome(.timeout), .retry(reason: "timeout", retryAfter: nil))

        let unregistered = Array(#"{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#.utf8)
        XCTAssertEqual(FCMSender.outcome(status: 404, body: unregistered, retryAfter: nil, now: now), .invalidToken(reason: "UNREGISTERED"))
        let quota = Array(#"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"errorCode":"QUOTA_EXCEEDED"}]}}"#.utf8)
        XCTAssertEqual(FCMSender.outcome(status: 429, body: quota, retryAfter: "30", now: now), .retry(reason: "QUOTA_EXCEEDED", retryAfter: 30))
        XCTAssertEqual(FCMSender.outcome(status: 500, body: Array("not json".utf8), retryAfter: nil, now: now),
                       .retry(reason: "status_500", retryAfter: nil))
        XCTAssertEqual(FCMSender.outcome(status: 400, body: Array(#"{"error":{"status":"INVALID_ARGUMENT"}}"#.utf8), retryAfter: nil, now: now),
                       .rejected(reason: "INVALID_ARGUMENT"))
    }

    func testRetryAfter_ReadsSecondsAndDates_AndNothingElse() {
        XCTAssertEqual(PushOutcome.retryAfter("120", now: 0), 120)
        XCTAssertEqual(PushOutcome.retryAfter("99999999", now: 0), 86_400)
        XCTAssertNil(PushOutcome.retryAfter("-1", now: 0))
        XCTAssertNil(PushOutcome.retryAfter("soon", now: 0))
        XCTAssertNil(PushOutcome.retryAfter(nil, now: 0))
        XCTAssertEqual(HTTPDateParser.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(PushOutcome.retryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: 784_111_777), 10)
        XCTAssertNil(HTTPDateParser.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        XCTAssertNil(HTTPDateParser.parse("Sun, 32 Nov 1994 08:49:37 GMT"))
        XCTAssertEqual(PushOutcome.label("Bad Device-Token!"), "BadDeviceToken")
        XCTAssertEqual(PushOutcome.label(""), "unknown")
    }
}

extension PushPayloadTests {
    func testAPNsAnswers_AreReadAsAppleMeansThem() {
        let now = 1_800_000_000.0
        func body(_ reason: String) -> [UInt8] { Array(#"{"reason":"\#(reason)"}"#.utf8) }
        XCTAssertEqual(APNsSender.outcome(status: 200, body: [], retryAfter: nil, now: now), .delivered)
        XCTAssertEqual(APNsSender.outcome(status: 410, body: body("Unregistered"), retryAfter: nil, now: now), .invalidToken(reason: "Unregistered"))
        XCTAssertEqual(APNsSender.outcome(status: 400, body: body("BadDeviceToken"), retryAfter: nil, now: now),
                       .invalidToken(reason: "BadDeviceToken"))
        XCTAssertEqual(APNsSender.outcome(status: 400, body: body("DeviceTokenNotForTopic"), retryAfter: nil, now: now),
                       .invalidToken(reason: "DeviceTokenNotForTopic"))
        XCTAssertEqual(APNsSender.outcome(status: 400, body: body("BadTopic"), retryAfter: nil, now: now), .rejected(reason: "BadTopic"))
        XCTAssertEqual(APNsSender.outcome(status: 403, body: body("ExpiredProviderToken"), retryAfter: nil, now: now),
                       .retry(reason: "ExpiredProviderToken", retryAfter: nil))
        XCTAssertEqual(APNsSender.outcome(status: 403, body: body("InvalidProviderToken"), retryAfter: nil, now: now),
                       .rejected(reason: "InvalidProviderToken"))
        XCTAssertEqual(APNsSender.outcome(status: 429, body: body("TooManyRequests"), retryAfter: "12", now: now),
                       .retry(reason: "TooManyRequests", retryAfter: 12))
        XCTAssertEqual(APNsSender.outcome(status: 503, body: Array("<html>".utf8), retryAfter: nil, now: now),
                       .retry(reason: "status_503", retryAfter: nil))
        XCTAssertEqual(APNsSender.outcome(.timeout), .retry(reason: "timeout", retryAfter: nil))
        XCTAssertEqual(APNsSender.outcome(.refused), .retry(reason: "network", retryAfter: nil))
    }
}
