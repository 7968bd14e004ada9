import Foundation
import HTTP
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Signals to the real executable: SIGHUP is survived (reserved for TLS reload), SIGTERM ends in
/// an orderly stop with exit status 0, after which the port no longer accepts connections.
final class ShutdownTests: XCTestCase {
    func test_sighupIsSurvived_sigtermStopsCleanly() throws {
        let harness = try ServiceHarness()
        harness.app.shutdown()
        defer { harness.shutdown() }
        let server = try DurabilityServerProcess(databaseURL: harness.databaseURL, plcURL: harness.plc.baseURL)
        let client = HTTPClient(timeout: 10, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        XCTAssertEqual(try client.send(method: "GET", server.baseURL + "/xrpc/_health").status, 200)

        kill(server.process.processIdentifier, SIGHUP)
        // The SIGHUP handler logs once it ran; wait for that line (bounded), then the server still answers.
        for _ in 0..<500 where !server.log.contains(where: { $0.contains("SIGHUP") }) { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(server.log.contains { $0.contains("SIGHUP") })
        XCTAssertTrue(server.process.isRunning)
        XCTAssertEqual(try client.send(method: "GET", server.baseURL + "/xrpc/_health").status, 200)

        server.terminate()
        let exit = server.waitForExit()
        XCTAssertEqual(exit?.reason, .exit)
        XCTAssertEqual(exit?.status, 0)
        let log = server.log
        let order = ["signal received", "shutting down", "stopped"].map { message in
            log.firstIndex { $0.contains("\"msg\":\"\(message)\"") }
        }
        XCTAssertFalse(order.contains(nil), "\(log.suffix(5))")
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted())
        XCTAssertThrowsError(try client.send(method: "GET", server.baseURL + "/xrpc/_health"))
    }
}
