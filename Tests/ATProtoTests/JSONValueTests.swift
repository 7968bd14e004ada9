import XCTest
@testable import ATProto

final class JSONValueTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    func testValues() throws {
        XCTAssertEqual(try parse(" {\"a\" : [1, -2.5e3, true, false, null, \"x\"] } "),
                       .object(["a": .array([.number(1), .number(-2500), .bool(true), .bool(false), .null, .string("x")])]))
        XCTAssertEqual(try parse("0"), .number(0))
        XCTAssertEqual(try parse("-0.5E-2"), .number(-0.005))
        XCTAssertEqual(try parse("{}"), .object([:]))
        XCTAssertEqual(try parse("[]"), .array([]))
    }

    func testStringEscapes() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        XCTAssertEqual(try parse(#""\u00e9\ud83d\ude00""#), .string("é😀"))
        XCTAssertEqual(try parse("\"é\""), .string("é"))
    }

    func testBooleansAreNotNumbers() throws {
        XCTAssertNil(try parse("true").numberValue)
        XCTAssertEqual(try parse("1").numberValue, 1)
        XCTAssertNil(try parse("\"1\"").numberValue)
    }

    func testMalformed() {
        let bad = [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]",
            "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1e400",
            "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
            "\"a\u{1}b\"", "\"tab\there\"", "{} {}", "[1] x", "/* c */ {}", "{\"a\":1 // c\n}",
        ]
        for text in bad {
            XCTAssertThrowsError(try parse(text), text)
        }
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]), "invalid UTF-8")
        XCTAssertThrowsError(try JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22]), "UTF-8 encoded surrogate")
    }

    func testDuplicateKeysAreRejected() {
        XCTAssertThrowsError(try parse("{\"iss\":\"a\",\"iss\":\"b\"}")) {
            XCTAssertEqual($0 as? JSONValue.ParseError, .duplicateKey("iss"))
        }
    }

    func testNestingIsBounded() {
        XCTAssertNoThrow(try parse(String(repeating: "[", count: 63) + String(repeating: "]", count: 63)))
        XCTAssertThrowsError(try parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))) {
            XCTAssertEqual($0 as? JSONValue.ParseError, .tooDeep)
        }
        XCTAssertThrowsError(try parse(String(repeating: "[", count: 1_000_000)))
    }

    func testTruncatedInputAlwaysFails() {
        let text = "{\"iss\":\"did:plc:x\",\"exp\":1700000000,\"n\":[1,{\"k\":\"\\u00e9\"}],\"b\":true}"
        XCTAssertNoThrow(try parse(text))
        for cut in 0..<text.utf8.count {
            XCTAssertThrowsError(try JSONValue.parse(Array(text.utf8.prefix(cut))), "cut at \(cut)")
        }
    }

    func testOversizedButValidInput() throws {
        let big = "[" + Array(repeating: "\"" + String(repeating: "x", count: 100) + "\"", count: 5000).joined(separator: ",") + "]"
        guard case .array(let elements) = try parse(big) else { return XCTFail("not an array") }
        XCTAssertEqual(elements.count, 5000)
    }
}
