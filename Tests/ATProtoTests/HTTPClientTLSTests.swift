import XCTest
@testable import HTTP

/// The TLS path against an in-process TLS server: certificate verification, host-name checks, SNI.
final class HTTPClientTLSTests: XCTestCase {
    private var server: LoopbackTLSServer!

    override func setUpWithError() throws {
        server = try LoopbackTLSServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func client(trusting: Bool) -> HTTPClient {
        var client = HTTPClient(timeout: 3, allowPrivateAddresses: true)
        if trusting { client.extraTrustAnchorPEM = server.certificatePEM }
        return client
    }

    func testTrustedCertificateAndMatchingNameSucceed() throws {
        let response = try client(trusting: true).get("https://localhost:\(server.port)/.well-known/did.json")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), server.body)
        XCTAssertEqual(server.receivedServerNames, ["localhost"], "SNI carries the host name")
    }

    func testUntrustedCertificateIsRejected() {
        XCTAssertThrowsError(try client(trusting: false).get("https://localhost:\(server.port)/")) { error in
            guard case .tls? = error as? HTTPClientError else { return XCTFail("expected a TLS failure, got \(error)") }
        }
        XCTAssertTrue(server.receivedServerNames.isEmpty, "no handshake may complete")
    }

    func testHostNameMismatchIsRejected() {
        // The certificate names only DNS:localhost; 127.0.0.1 is checked as an IP and does not match.
        XCTAssertThrowsError(try client(trusting: true).get("https://127.0.0.1:\(server.port)/")) { error in
            guard case .tls? = error as? HTTPClientError else { return XCTFail("expected a TLS failure, got \(error)") }
        }
        XCTAssertTrue(server.receivedServerNames.isEmpty)
    }

    func testPlainHTTPToTLSPortFails() {
        XCTAssertThrowsError(try client(trusting: true).get("http://localhost:\(server.port)/"))
    }
}
