import XCTest
@testable import HTTP

final class HTTPHeadersTests: XCTestCase {
    func testLookup_IsCaseInsensitiveAndOrdered() {
        var headers = HTTPHeaders([("Accept", "a"), ("accept", "b"), ("X", "1")])
        XCTAssertEqual(headers["ACCEPT"], "a")
        XCTAssertEqual(headers.values(for: "Accept"), ["a", "b"])
        XCTAssertNil(headers["missing"])
        headers.add("x", "2")
        XCTAssertEqual(headers.values(for: "X"), ["1", "2"])
        headers.replace("X", "3")
        XCTAssertEqual(headers.values(for: "x"), ["3"])
        XCTAssertEqual(headers.map(\.name), ["Accept", "accept", "X"])
        headers.remove("accept")
        XCTAssertEqual(headers.count, 1)
    }

    func testRequestHead_SplitsTargetAtFirstQuestionMark() {
        let head = HTTPRequestHead(method: .get, target: "/a/b?x=1?y")
        XCTAssertEqual(head.path, "/a/b")
        XCTAssertEqual(head.query, "x=1?y")
        XCTAssertEqual(HTTPRequestHead(method: .get, target: "/plain").query, "")
    }
}
