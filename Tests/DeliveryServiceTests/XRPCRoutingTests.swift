import Foundation
import XCTest

/// The XRPC conventions of API.md, against the real server over a socket.
final class XRPCRoutingTests: ServiceTestCase {
    func test_health_returnsVersion() throws {
        let reply = try service.get(path: "/xrpc/_health")
        XCTAssertEqual(reply.status, 200)
        XCTAssertNotNil(reply.json["version"] as? String)
        XCTAssertEqual(reply.json["database"] as? String, "primary")
    }

    func test_didDocument_hasMlsServiceEntry() throws {
        let reply = try service.get(path: "/.well-known/did.json")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json["id"] as? String, ServiceHarness.serviceDID)
        let services = reply.json["service"] as? [[String: Any]]
        XCTAssertEqual(services?.first?["id"] as? String, "#atproto_mls")
        XCTAssertEqual(services?.first?["type"] as? String, "AtprotoMlsService")
        XCTAssertEqual(services?.first?["serviceEndpoint"] as? String, "https://mls.test")
    }

    func test_unknownNSID_is404MethodNotImplemented() throws {
        let reply = try service.call("blue.catbird.mls.noSuchMethod")
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.error, "MethodNotImplemented")
        XCTAssertNotNil(reply.json["message"] as? String)
    }

    func test_pathOutsideXRPC_is404() throws {
        let reply = try service.get(path: "/nothing-here")
        XCTAssertEqual(reply.status, 404)
    }
}
