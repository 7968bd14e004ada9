import XCTest
@testable import HTTP

final class HTTPClientURLTests: XCTestCase {
    func testParsing() throws {
        let plc = try HTTPClientURL("https://plc.directory/did:plc:ewvi7nxzyoun6zhxrhs64oiz")
        XCTAssertEqual(plc.scheme, .https)
        XCTAssertEqual(plc.host, "plc.directory")
        XCTAssertEqual(plc.port, 443)
        XCTAssertEqual(plc.target, "/did:plc:ewvi7nxzyoun6zhxrhs64oiz")
        XCTAssertEqual(plc.hostHeader, "plc.directory")

        let local = try HTTPClientURL("http://LocalHost:8443/.well-known/did.json?x=1#frag")
        XCTAssertEqual(local.host, "localhost")
        XCTAssertEqual(local.port, 8443)
        XCTAssertEqual(local.target, "/.well-known/did.json?x=1")
        XCTAssertEqual(local.hostHeader, "localhost:8443")

        let v6 = try HTTPClientURL("http://[::1]:81")
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.target, "/")
        XCTAssertEqual(v6.hostHeader, "[::1]:81")
    }

    func testRejections() {
        for bad in [
            "", "plc.directory", "ftp://example.com/", "file:///etc/passwd", "http://", "http://user@example.com/",
            "http://a b/", "http://example.com/a b", "http://example.com/\r\nX: y", "http://example.com:0/",
            "http://example.com:65536/", "http://example.com:80a/", "http://[::1/", "http://[zz]/", "http://exa%6dple.com/",
            "http://example.com:/", "http://[::1]x/", "http://" + String(repeating: "a", count: 300) + "/",
        ] {
            XCTAssertThrowsError(try HTTPClientURL(bad), bad)
        }
    }
}
