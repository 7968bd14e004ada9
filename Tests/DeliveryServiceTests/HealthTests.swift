@testable import DeliveryService
import Foundation
import HTTP
import Store
import XCTest

/// `/xrpc/_health` from the health monitor's last answer: 200 naming `primary` while the service
/// reaches one (XRPCRoutingTests), 503 with Retry-After naming what it reaches instead.
final class HealthTests: XCTestCase {
    func test_health_withNoDatabase_is503AndSaysUnavailable() throws {
        let down = try Database(url: "postgresql://postgres@127.0.0.1:1/catbird?sslmode=disable", poolSize: 1)
        defer { down.close() }
        let monitor = HealthMonitor(database: down)
        XCTAssertEqual(monitor.databaseState, .unavailable)
        XCTAssertFalse(monitor.isDatabaseHealthy)
        let response = PlainRoutes.health(monitor)(HTTPRequest(head: HTTPRequestHead(method: .get, target: "/xrpc/_health")))
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.headers["Retry-After"], "1")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(json["database"] as? String, "unavailable")
        XCTAssertEqual(json["error"] as? String, "DatabaseUnavailable")
        XCTAssertNotNil(json["version"] as? String)
    }
}
