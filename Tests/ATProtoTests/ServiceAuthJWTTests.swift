import XCTest
@testable import ATProto

final class ServiceAuthJWTTests: XCTestCase {
    private func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    private func assertBadJwt(_ token: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try ServiceAuthJWT.parse(token), token, file: file, line: line) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwt", file: file, line: line)
        }
    }

    func testParsesSegments() throws {
        let header = b64("{\"alg\":\"ES256K\",\"typ\":\"JWT\"}")
        let payload = b64("{\"iss\":\"did:plc:ewvi7nxzyoun6zhxrhs64oiz\",\"exp\":1}")
        let signature = Base64URL.encode([UInt8](repeating: 7, count: 64))
        let jwt = try ServiceAuthJWT.parse("\(header).\(payload).\(signature)")
        XCTAssertEqual(jwt.header["alg"], .string("ES256K"))
        XCTAssertEqual(jwt.claims["exp"], .number(1))
        XCTAssertEqual(jwt.signature, [UInt8](repeating: 7, count: 64))
        XCTAssertEqual(jwt.signingInput, Array("\(header).\(payload)".utf8))
    }

    func testPaddedSegmentsAreTolerated() throws {
        let header = Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8))
        let padded = header + String(repeating: "=", count: (4 - header.count % 4) % 4)
        XCTAssertNoThrow(try ServiceAuthJWT.parse("\(padded).\(b64("{}")).\(b64("sig"))"))
    }

    func testSegmentCount() {
        assertBadJwt("")
        assertBadJwt("a.b")
        assertBadJwt("\(b64("{}")).\(b64("{}"))")
        assertBadJwt("\(b64("{}")).\(b64("{}")).\(b64("x")).\(b64("y"))")
        assertBadJwt("..")
    }

    func testBadBase64AndJSON() {
        assertBadJwt("\(b64("{}"))!.\(b64("{}")).AAAA")
        assertBadJwt("\(b64("{}")).\(b64("{}")).AA+A")
        assertBadJwt("\(b64("[1]")).\(b64("{}")).AAAA")
        assertBadJwt("\(b64("{}")).\(b64("\"claims\"")).AAAA")
        assertBadJwt("\(b64("{\"alg\":")).\(b64("{}")).AAAA")
        assertBadJwt("\(b64("{}")).\(b64("{\"exp\":1}garbage")).AAAA")
    }

    func testTruncatedToken() {
        let token = "\(b64("{\"alg\":\"ES256K\",\"typ\":\"JWT\"}")).\(b64("{\"exp\":1,\"iss\":\"did:plc:x\"}")).\(Base64URL.encode([UInt8](repeating: 1, count: 64)))"
        XCTAssertNoThrow(try ServiceAuthJWT.parse(token))
        let signatureStart = token.utf8.count - Base64URL.encode([UInt8](repeating: 1, count: 64)).utf8.count
        for cut in 0..<token.utf8.count {
            let prefix = String(token.prefix(cut))
            if cut < signatureStart {
                assertBadJwt(prefix) // fewer than three segments
            } else if let jwt = try? ServiceAuthJWT.parse(prefix) {
                XCTAssertLessThan(jwt.signature.count, 64, "a truncated signature stays short")
            }
        }
    }

    func testOversizedToken() {
        let payload = b64("{\"pad\":\"" + String(repeating: "x", count: 9000) + "\"}")
        assertBadJwt("\(b64("{}")).\(payload).AAAA")
    }
}
