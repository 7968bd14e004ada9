import DeliveryService
import Foundation
import HTTP
import MLS
import Store
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The outbox under failure (docs/push.md): a server killed after a message's 2xx and before its
/// push went out pushes it once after a restart; two nodes on one outbox never push twice.
final class PushDurabilityTests: XCTestCase {
    /// A port nothing listens on now (bound, then released).
    func unusedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw XCTestError(.failureWhileWaiting) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func testAServerKilledBeforeThePushWentOut_PushesItOnceAfterRestart() throws {
        // The APNs host is down while the first server runs: its push cannot go out.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try PushStandIn(.apns, directory: directory)
        let key = try first.command(["cmd": "key"])
        let caFile = first.caFile
        first.stop()
        let port = try unusedPort()
        let environment = [
            "APNS_KEY_FILE": try XCTUnwrap(key["file"] as? String), "APNS_KEY_ID": try XCTUnwrap(key["key_id"] as? String),
            "APNS_TEAM_ID": try XCTUnwrap(key["team_id"] as? String), "APNS_TOPIC": try XCTUnwrap(key["topic"] as? String),
            "APNS_HOST": "https://127.0.0.1:\(port)", "APNS_CA_FILE": caFile, "PUSH_TIMEOUT": "1",
        ]
        let harness = try ServiceHarness(environment: environment)
        defer { harness.shutdown() }
        let chat = try ChatFlow(service: harness).chat(2)
        let (alice, bob, convo) = (chat.users[0], chat.users[1], chat.convo)
        let token = String(repeating: "c0ffee", count: 10) + "abcd"
        XCTAssertEqual(try harness.call("blue.catbird.mls.registerDeviceToken", as: bob.identity, json: [
            "deviceId": "bob-iphone", "platform": "ios", "pushToken": token,
        ]).status, 200)
        harness.app.shutdown()

        let server = try DurabilityServerProcess(databaseURL: harness.databaseURL, plcURL: harness.plc.baseURL, extra: environment)
        var group = try XCTUnwrap(alice.groups[convo])
        let ciphertext = try group.encrypt(Array("sent before the crash".utf8))
        alice.groups[convo] = group
        let client = HTTPClientForTests.client
        let reply = try client.send(method: "POST", server.baseURL + "/xrpc/blue.catbird.mls.sendMessage", headers: [
            ("Authorization", "Bearer " + alice.identity.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.sendMessage")),
            ("Content-Type", "application/json"),
        ], body: Array(try JSONSerialization.data(withJSONObject: [
            "convoId": convo, "msgId": MessageID.next(), "epoch": Int(group.epoch), "ciphertext": MLSTestUser.bytes(ciphertext),
        ])))
        XCTAssertEqual(reply.status, 200)
        Thread.sleep(forTimeInterval: 1.5)
        server.kill9()
        _ = server.waitForExit()

        // APNs comes up; the server starts again on the same database.
        let apns = try PushStandIn(.apns, directory: directory, port: port)
        defer { apns.stop() }
        try apns.command(["cmd": "key", "file": environment["APNS_KEY_FILE"]!, "key_id": environment["APNS_KEY_ID"]!,
                          "team_id": environment["APNS_TEAM_ID"]!])
        let restarted = try DurabilityServerProcess(databaseURL: harness.databaseURL, plcURL: harness.plc.baseURL, extra: environment)
        defer {
            restarted.terminate()
            _ = restarted.waitForExit()
        }
        let pushes = apns.wait(for: "push", count: 1, timeout: 40) { $0["id"] as? String == token }
        XCTAssertEqual(pushes.count, 1, "the push committed with the message went out after the restart")
        Thread.sleep(forTimeInterval: 3)
        let all = apns.pushes(to: token)
        XCTAssertEqual(all.count, 1, "pushed once: \(all)")
        let payload = try XCTUnwrap(all.first?["payload"] as? [String: Any])
        var bobsGroup = try XCTUnwrap(bob.groups[convo])
        let plaintext = try bobsGroup.decrypt(try MLSMessage(decoding: Array(try XCTUnwrap(Data(base64Encoded: payload["ciphertext"] as? String ?? "")))))
        XCTAssertEqual(String(decoding: plaintext.0, as: UTF8.self), "sent before the crash")
        let database = try Database(url: harness.databaseURL, poolSize: 1)
        defer { database.close() }
        let deadline = Date().addingTimeInterval(10)
        while try database.query("SELECT 1 FROM push_outbox").count > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(try database.query("SELECT 1 FROM push_outbox").count, 0, "the delivered push settled")
    }
}

/// One client for the tests that call a server process directly.
enum HTTPClientForTests {
    static let client = HTTP.HTTPClient(timeout: 15, maxBodySize: 1 << 20, allowPrivateAddresses: true)
}
