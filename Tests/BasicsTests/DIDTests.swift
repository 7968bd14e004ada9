import XCTest
@testable import Basics

final class DIDTests: XCTestCase {
    private func assertRejected(_ string: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try DID(string), string, file: file, line: line) { error in
            XCTAssertFalse((error as? DIDSyntaxError)?.reason.isEmpty ?? true, file: file, line: line)
        }
    }

    func testValidPLC() throws {
        let did = try DID("did:plc:ewvi7nxzyoun6zhxrhs64oiz")
        XCTAssertEqual(did.method, .plc)
        XCTAssertEqual(did.description, "did:plc:ewvi7nxzyoun6zhxrhs64oiz")
    }

    func testInvalidPLC() {
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oi")        // 23 characters
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oizz")      // 25
        assertRejected("did:plc:EWVI7NXZYOUN6ZHXRHS64OIZ")       // upper case
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oi1")       // 1 is not base32
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oiz#atproto")
        assertRejected("did:plc:")
    }

    func testValidWeb() throws {
        XCTAssertEqual(try DID("did:web:example.com").method, .web)
        XCTAssertEqual(try DID("did:web:pds.sub-domain.example.co.uk").webHostAndPort?.host, "pds.sub-domain.example.co.uk")
        let local = try DID("did:web:localhost%3A8443")
        XCTAssertEqual(local.webHostAndPort?.host, "localhost")
        XCTAssertEqual(local.webHostAndPort?.port, 8443)
    }

    func testInvalidWeb() {
        assertRejected("did:web:example.com%3A8443")   // port only for localhost
        assertRejected("did:web:example.com:user:alice") // path segments
        assertRejected("did:web:localhost%3A")
        assertRejected("did:web:localhost%3A99999")
        assertRejected("did:web:localhost%2F")
        assertRejected("did:web:-bad.example.com")
        assertRejected("did:web:bad..example.com")
        assertRejected("did:web:exa_mple.com")
        assertRejected("did:web:")
        assertRejected("did:web:example.com#atproto")
        assertRejected("did:web:example.com?x=1")
        assertRejected("did:web:" + String(repeating: "a", count: 64) + ".com")
    }

    func testOtherMethodsAndJunk() {
        assertRejected("did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme")
        assertRejected("did:example:123")
        assertRejected("alice.bsky.social")
        assertRejected("")
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oiz\n")
        assertRejected("did:plc:ewvi7nxzyoun6zhxrhs64oi\u{0437}")
    }

    func testLengthLimit() {
        assertRejected("did:web:" + Array(repeating: "a", count: 1100).joined(separator: "."))
        assertRejected(String(repeating: "d", count: 2049))
    }
}
