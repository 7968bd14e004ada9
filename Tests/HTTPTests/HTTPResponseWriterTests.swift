import Foundation
import XCTest
@testable import HTTP

final class HTTPResponseWriterTests: XCTestCase {
    private func head(_ response: HTTPResponse, keepAlive: Bool = true, announce: Bool = false) -> String {
        String(decoding: HTTPResponseWriter.head(for: response, keepAlive: keepAlive, announceKeepAlive: announce, date: Array("DATE".utf8)), as: UTF8.self)
    }

    func testHead_HasStatusLineLengthAndDate() {
        let text = head(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array("{}".utf8)))
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: DATE\r\n\r\n")
    }

    func testConnectionHeaders_FollowTheDecision() {
        XCTAssertTrue(head(HTTPResponse(status: 404), keepAlive: false).contains("\r\nConnection: close\r\n"))
        XCTAssertTrue(head(HTTPResponse(status: 200), announce: true).contains("\r\nConnection: keep-alive\r\n"))
        XCTAssertFalse(head(HTTPResponse(status: 200)).contains("Connection"))
    }

    func testServerOwnedFields_FromTheResponderAreDropped() {
        let response = HTTPResponse(status: 200, headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "x"], body: [1, 2, 3])
        let text = head(response)
        XCTAssertFalse(text.contains("999"))
        XCTAssertFalse(text.contains("chunked"))
        XCTAssertTrue(text.contains("Content-Length: 3\r\n"))
    }

    func testNoContentStatuses_HaveNoContentLength() {
        XCTAssertFalse(head(HTTPResponse(status: 204)).contains("Content-Length"))
        XCTAssertFalse(head(HTTPResponse(status: 304)).contains("Content-Length"))
        XCTAssertTrue(head(HTTPResponse(status: 200)).contains("Content-Length: 0\r\n"))
    }

    func testInjectedLineBreaks_AreNeutralised() {
        let text = head(HTTPResponse(status: 200, headers: HTTPHeaders([("X-Evil\r\nSet-Cookie", "a\r\nSet-Cookie: b")])))
        XCTAssertFalse(text.contains("\r\nSet-Cookie"))
        XCTAssertTrue(text.contains("X-EvilSet-Cookie: a  Set-Cookie: b\r\n"))
    }

    func testErrorBody_IsXRPCShapedJSON() throws {
        let response = HTTPResponse.error(status: 400, error: "InvalidRequest", message: "bad \"quote\"\n")
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
        XCTAssertEqual(json, ["error": "InvalidRequest", "message": "bad \"quote\"\n"])
        XCTAssertEqual(response.headers["content-type"], "application/json")
    }

    func testDecimals_AndDates_AreFormatted() {
        var out: [UInt8] = []
        HTTPResponseWriter.appendDecimal(1_234_567_890, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "1234567890")
        // RFC 9110 §5.6.7 example date.
        XCTAssertEqual(String(decoding: HTTPDateCache.format(784_111_777), as: UTF8.self), "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
