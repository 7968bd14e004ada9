@testable import HTTP
import XCTest

/// `maxConnectionsPerIP` counted by peer: IPv4 peers one by one (an IPv4-mapped peer as its IPv4
/// address), IPv6 peers by their /64, exempt peers not at all. The server's own bookkeeping, without
/// sockets: loopback offers no second /64 to connect from.
final class ConnectionLimitTests: XCTestCase {
    struct Responder: HTTPResponder {
        func respond(to request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 200) }
    }

    func shared(perIP: Int, exempt: (@Sendable (String) -> Bool)? = nil) -> ServerShared {
        var configuration = HTTPServerConfiguration(maxConnectionsPerIP: perIP)
        configuration.exemptFromConnectionLimit = exempt
        return ServerShared(configuration: configuration, responder: Responder(), tlsContext: nil)
    }

    func test_ipv6Peers_countByTheirSlash64() {
        let server = shared(perIP: 2)
        XCTAssertTrue(server.reserveConnection(from: "2001:db8:aa:bb::1"))
        XCTAssertTrue(server.reserveConnection(from: "2001:db8:aa:bb:ffff:ffff:ffff:ffff"))
        XCTAssertFalse(server.reserveConnection(from: "2001:db8:aa:bb:1:2:3:4"), "a third address of the same /64")
        XCTAssertTrue(server.reserveConnection(from: "2001:db8:aa:bc::1"), "the next /64 is another peer")
        XCTAssertEqual(server.connectionCount, 3)
        server.releaseConnection(from: "2001:db8:aa:bb::1")
        XCTAssertTrue(server.reserveConnection(from: "2001:db8:aa:bb::99"), "a slot freed in the /64")
    }

    func test_ipv4Peers_countAlone_mappedOnesAsTheirIPv4Address() {
        let server = shared(perIP: 2)
        XCTAssertTrue(server.reserveConnection(from: "192.0.2.1"))
        XCTAssertTrue(server.reserveConnection(from: "::ffff:192.0.2.1"))
        XCTAssertFalse(server.reserveConnection(from: "192.0.2.1"))
        XCTAssertFalse(server.reserveConnection(from: "::ffff:192.0.2.1"))
        XCTAssertTrue(server.reserveConnection(from: "192.0.2.2"), "the neighbouring address is another peer")
        XCTAssertEqual(server.connectionCount, 3)
    }

    func test_exemptPeersAndNoLimit() {
        let proxy = shared(perIP: 1, exempt: { $0 == "10.0.0.1" })
        for _ in 0..<5 { XCTAssertTrue(proxy.reserveConnection(from: "10.0.0.1")) }
        XCTAssertTrue(proxy.reserveConnection(from: "10.0.0.2"))
        XCTAssertFalse(proxy.reserveConnection(from: "10.0.0.2"))
        let unlimited = shared(perIP: 0)
        for _ in 0..<5 { XCTAssertTrue(unlimited.reserveConnection(from: "2001:db8::1")) }
    }
}
