import Foundation
import XCTest

/// registerStorage / getStorage against the real service: validation, replacement, per-caller records.
final class StorageRegistrationTests: ServiceTestCase {
    func test_register_get_replace() throws {
        let alice = try service.makeUser(), bob = try service.makeUser()
        let missing = try service.call("blue.catbird.mls.getStorage", as: alice)
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.error, "StorageNotRegistered")

        let first = try service.call("blue.catbird.mls.registerStorage", as: alice, json: [
            "provider": ["type": "cloudkit", "config": ["container": "iCloud.blue.catbird"]],
        ])
        XCTAssertEqual(first.status, 200, "\(first.json)")
        XCTAssertEqual(first.json["provider"] as? NSDictionary,
                       ["type": "cloudkit", "config": ["container": "iCloud.blue.catbird"]] as NSDictionary)
        XCTAssertNotNil(first.json["registeredAt"] as? String)
        let read = try service.call("blue.catbird.mls.getStorage", as: alice)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.json as NSDictionary, first.json as NSDictionary)

        let replaced = try service.call("blue.catbird.mls.registerStorage", as: alice, json: [
            "provider": ["type": "s3", "endpoint": "https://s3.eu-west-1.amazonaws.com", "config": ["bucket": "alice-mls"]],
        ])
        XCTAssertEqual(replaced.status, 200, "\(replaced.json)")
        let again = try service.call("blue.catbird.mls.getStorage", as: alice).json["provider"] as? NSDictionary
        XCTAssertEqual(again, ["type": "s3", "endpoint": "https://s3.eu-west-1.amazonaws.com",
                               "config": ["bucket": "alice-mls"]] as NSDictionary)
        // Bob's view is his own.
        XCTAssertEqual(try service.call("blue.catbird.mls.getStorage", as: bob).status, 404)
    }

    func test_invalidRegistrations_are400_andChangeNothing() throws {
        let alice = try service.makeUser()
        XCTAssertEqual(try service.call("blue.catbird.mls.registerStorage", as: alice, json: [
            "provider": ["type": "firestore", "config": ["project": "p1"]],
        ]).status, 200)
        let bigValue = String(repeating: "v", count: 1000)
        let oversized = Dictionary(uniqueKeysWithValues: (0..<6).map { ("k\($0)", bigValue) })
        let tooMany = Dictionary(uniqueKeysWithValues: (0..<33).map { ("k\($0)", "v") })
        let cases: [(String, Any)] = [
            ("unknown type", ["provider": ["type": "dropbox"]]),
            ("type missing", ["provider": ["endpoint": "https://x.example"]]),
            ("provider missing", [:] as [String: Any]),
            ("s3 without endpoint", ["provider": ["type": "s3"]]),
            ("http endpoint", ["provider": ["type": "s3", "endpoint": "http://s3.example.com"]]),
            ("relative endpoint", ["provider": ["type": "s3", "endpoint": "s3.example.com/bucket"]]),
            ("credentials in endpoint", ["provider": ["type": "s3", "endpoint": "https://key:secret@s3.example.com"]]),
            ("endpoint too long", ["provider": ["type": "s3", "endpoint": "https://" + String(repeating: "a", count: 600) + ".com"]]),
            ("endpoint not https for gdrive", ["provider": ["type": "gdrive", "endpoint": "ftp://drive.example"]]),
            ("oversized config", ["provider": ["type": "cloudkit", "config": oversized]]),
            ("value too long", ["provider": ["type": "cloudkit", "config": ["k": String(repeating: "v", count: 1025)]]]),
            ("too many entries", ["provider": ["type": "cloudkit", "config": tooMany]]),
            ("bad key", ["provider": ["type": "cloudkit", "config": ["a b": "v"]]]),
            ("empty key", ["provider": ["type": "cloudkit", "config": ["": "v"]]]),
            ("non-string value", ["provider": ["type": "cloudkit", "config": ["n": 5]]]),
            ("nested config", ["provider": ["type": "cloudkit", "config": ["n": ["deeper": "x"]]]]),
            ("config not an object", ["provider": ["type": "cloudkit", "config": "x"]]),
            ("provider not an object", ["provider": "cloudkit"]),
        ]
        for (name, body) in cases {
            let reply = try service.call("blue.catbird.mls.registerStorage", as: alice, json: body as? [String: Any] ?? [:])
            XCTAssertEqual(reply.status, 400, "\(name): \(reply.json)")
            XCTAssertEqual(reply.error, "InvalidRequest", name)
        }
        let truncated = try service.call("blue.catbird.mls.registerStorage", as: alice,
                                         rawBody: Array(#"{"provider":{"type":"clou"#.utf8),
                                         headers: [("Content-Type", "application/json")])
        XCTAssertEqual(truncated.status, 400)
        let huge = try service.call("blue.catbird.mls.registerStorage", as: alice, json: [
            "provider": ["type": "cloudkit", "config": ["k": String(repeating: "v", count: 20_000)]],
        ])
        XCTAssertEqual(huge.status, 413)
        let kept = try service.call("blue.catbird.mls.getStorage", as: alice).json["provider"] as? NSDictionary
        XCTAssertEqual(kept, ["type": "firestore", "config": ["project": "p1"]] as NSDictionary)
    }

    func test_unauthenticated_is401() throws {
        XCTAssertEqual(try service.call("blue.catbird.mls.getStorage").status, 401)
        XCTAssertEqual(try service.call("blue.catbird.mls.registerStorage", json: ["provider": ["type": "cloudkit"]]).status, 401)
    }
}
