import Foundation
import HTTP
import HTTP2
import Synchronization
import XCTest

/// The HTTP/2 client against a peer that is not ours (the APNs stand-in, PyPI `h2`): many requests
/// multiplexed on one connection, pings on an idle one, a refused handshake.
final class HTTP2ClientTests: XCTestCase {
    func client(_ standIn: PushStandIn, ping: Double = 60) throws -> HTTP2Client {
        var configuration = HTTP2Client.Configuration(host: "127.0.0.1", port: standIn.port,
                                                      trustedCertificatesPEM: Array(try Data(contentsOf: URL(fileURLWithPath: standIn.caFile))))
        configuration.pingInterval = ping
        configuration.pingTimeout = 2
        return try HTTP2Client(configuration: configuration)
    }

    /// The stand-in answers 400 to a request without a provider token: enough to see the exchange.
    func request(_ token: String) -> HTTP2Request {
        HTTP2Request(method: "POST", path: "/3/device/" + token, headers: [("apns-topic", "x")], body: Array("{}".utf8), timeout: 10)
    }

    func testManyRequests_ShareOneConnection_AndAnIdleOneIsPinged() throws {
        let standIn = try PushStandIn(.apns)
        defer { standIn.stop() }
        try standIn.command(["cmd": "key"])
        let client = try client(standIn, ping: 0.3)
        defer { client.shutdown() }
        let statuses = Mutex<[Int]>([])
        let done = DispatchGroup()
        for index in 0..<200 {
            done.enter()
            client.send(request(String(format: "%064x", index))) { result in
                statuses.withLock { $0.append((try? result.get().status) ?? -1) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(statuses.withLock { $0 }.filter { $0 == 400 }.count, 200, "every request answered (400: no provider token)")
        XCTAssertEqual(standIn.events("connection").count, 1)
        XCTAssertEqual(client.connectionsMade.load(ordering: .relaxed), 1)
        XCTAssertGreaterThanOrEqual(standIn.wait(for: "ping", count: 2, timeout: 5).count, 2, "an idle connection is pinged")
        let again = DispatchSemaphore(value: 0)
        client.send(request(String(repeating: "ab", count: 32))) { _ in again.signal() }
        XCTAssertEqual(again.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(standIn.events("connection").count, 1, "the pinged connection still serves")
    }

    func testAHostWithAnotherCertificate_IsRefused_AndRequestsFailWithinTheirTimeout() throws {
        let standIn = try PushStandIn(.apns)
        defer { standIn.stop() }
        let other = try PushStandIn(.apns)
        defer { other.stop() }
        var configuration = HTTP2Client.Configuration(host: "127.0.0.1", port: standIn.port,
                                                      trustedCertificatesPEM: Array(try Data(contentsOf: URL(fileURLWithPath: other.caFile))))
        configuration.connectTimeout = 2
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }
        let outcome = Mutex<Result<HTTPClientResponse, HTTP2Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        var request = request(String(repeating: "cd", count: 32))
        request.timeout = 3
        let started = Date()
        client.send(request) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try XCTUnwrap(outcome.withLock { $0 }).failureValue, .timeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        XCTAssertEqual(standIn.events("push").count, 0, "nothing was sent to an unverified host")
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
