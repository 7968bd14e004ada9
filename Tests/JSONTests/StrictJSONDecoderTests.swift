import Basics
import Foundation
import XCTest
@testable import JSON

final class StrictJSONDecoderTests: XCTestCase {
    private struct Item: Codable, Equatable {
        var id: String
        var epoch: Int64
        var tags: [String]
        var payload: ATBytes
        var note: String?
    }

    private struct Envelope: Codable, Equatable {
        var convoId: String
        var items: [Item]
    }

    private struct Scalars: Codable, Equatable {
        var flag: Bool
        var small: Int8
        var unsigned: UInt64
        var ratio: Double
        var single: Float
        var nothing: Int?
        var list: [Int]?
        var nested: [[Bool]]
        var map: [String: Int]
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try StrictJSON.decode(T.self, from: Array(text.utf8))
    }

    private func parseError(_ text: String) -> JSONParseError.Reason? {
        parseError(Array(text.utf8))
    }

    private func parseError(_ bytes: [UInt8]) -> JSONParseError.Reason? {
        do {
            _ = try StrictJSON.decode([String: Int?].self, from: bytes)
            return nil
        } catch let error as JSONParseError {
            return error.reason
        } catch {
            return nil
        }
    }

    private func decodingError<T: Decodable>(_ type: T.Type, _ text: String) -> DecodingError? {
        do {
            _ = try decode(T.self, text)
            return nil
        } catch {
            return error as? DecodingError
        }
    }

    private func pathString(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    func testDecodesNestedStructsArraysAndBytes() throws {
        let text = #" { "convoId" : "c1", "items": [ {"id":"a","epoch":3,"tags":["x","y"],"payload":{"$bytes":"AAEC"},"extra":[1,{"z":null}]},"#
            + #" {"id":"b\u00e9","epoch":-9223372036854775808,"tags":[],"payload":"AAECAw==","note":"hi"} ] } "#
        let envelope = try decode(Envelope.self, text)
        XCTAssertEqual(envelope, Envelope(convoId: "c1", items: [
            Item(id: "a", epoch: 3, tags: ["x", "y"], payload: ATBytes([0, 1, 2]), note: nil),
            Item(id: "bé", epoch: Int64.min, tags: [], payload: ATBytes([0, 1, 2, 3]), note: "hi"),
        ]))
    }

    func testScalarsAgreeWithFoundation() throws {
        let text = #"{"flag":true,"small":-128,"unsigned":18446744073709551615,"ratio":-2.5e-3,"single":0.5,"#
            + #""nothing":null,"nested":[[true,false],[]],"map":{"a":1,"b":2},"list":[1,2.0,3e2]}"#
        let ours = try decode(Scalars.self, text)
        let foundation = try JSONDecoder().decode(Scalars.self, from: Data(text.utf8))
        XCTAssertEqual(ours, foundation)
        XCTAssertEqual(ours.list, [1, 2, 300])
        XCTAssertEqual(ours.unsigned, UInt64.max)
    }

    func testStringEscapes() throws {
        XCTAssertEqual(try decode(String.self, #""a\"b\\c\/d\b\f\n\r\t""#), "a\"b\\c/d\u{8}\u{c}\n\r\t")
        XCTAssertEqual(try decode(String.self, #""\u00e9\ud83d\ude00\u0000""#), "é😀\u{0}")
        XCTAssertEqual(try decode(String.self, "\"é😀\""), "é😀")
        XCTAssertEqual(try decode([String: Int].self, #"{"\u0061":1}"#), ["a": 1])
    }

    func testEscapedKeysMatchCodingKeys() throws {
        struct Keyed: Decodable { var convoId: String }
        XCTAssertEqual(try decode(Keyed.self, #"{"convo\u0049d":"x"}"#).convoId, "x")
    }

    func testMalformedInputIsAParseError() {
        let bad = [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]",
            "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "-Infinity",
            "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
            "\"a\u{1}b\"", "\"tab\there\"", "{} {}", "{\"a\":1} x", "/* c */ {}", "{\"a\":1 // c\n}",
        ]
        for text in bad {
            XCTAssertNotNil(parseError(text), text)
        }
    }

    func testTruncatedDocumentsAreRefused() {
        let text = Array(#"{"convoId":"c","items":[{"id":"a","epoch":1,"tags":["x"],"payload":{"$bytes":"AA"}}]}"#.utf8)
        for length in 0..<text.count {
            XCTAssertThrowsError(try StrictJSON.decode(Envelope.self, from: Array(text[..<length])), "prefix \(length)") { error in
                XCTAssertTrue(error is JSONParseError, "prefix \(length): \(error)")
            }
        }
    }

    func testInvalidUTF8IsRefused() {
        let cases: [[UInt8]] = [
            [0x22, 0xC3, 0x28, 0x22],             // bad continuation
            [0x22, 0xC0, 0xAF, 0x22],             // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],       // overlong three-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],       // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0x22, 0xE2, 0x82, 0x22],             // truncated sequence
            [0x22, 0xF0, 0x9F, 0x98],             // truncated at end of input
        ]
        for bytes in cases {
            XCTAssertEqual(parseError(bytes), .invalidUTF8, "\(bytes)")
        }
        XCTAssertEqual(try StrictJSON.decode(String.self, from: [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]), "😀")
    }

    func testDuplicateKeysAreRefused() {
        XCTAssertEqual(parseError(#"{"a":1,"b":2,"a":3}"#), .duplicateKey)
        // Equal once unescaped.
        XCTAssertEqual(parseError(#"{"a":1,"\u0061":2}"#), .duplicateKey)
        // Past the pairwise limit the hash-set path runs.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertNil(parseError("{\(many)}"))
        XCTAssertEqual(parseError("{\(many),\"k17\":0}"), .duplicateKey)
        // The same key in different objects is fine.
        XCTAssertNoThrow(try decode([[String: Int]].self, #"[{"a":1},{"a":2}]"#))
    }

    func testNestingIsBounded() {
        let limit = JSONTape.maxDepth
        XCTAssertNoThrow(try StrictJSON.decode(JSONIgnored.self, from: Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)))
        XCTAssertEqual(parseError(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)), .tooDeep)
        // Hostile depth never recurses further than the limit.
        XCTAssertEqual(parseError(String(repeating: "{\"a\":", count: 100_000)), .tooDeep)
    }

    func testMissingFieldNamesItsPath() throws {
        let text = #"{"convoId":"c","items":[{"id":"a","epoch":1,"tags":[],"payload":"AA=="},{"id":"b","epoch":1,"tags":[]}]}"#
        guard case .keyNotFound(let key, let context)? = decodingError(Envelope.self, text) else {
            return XCTFail("expected keyNotFound")
        }
        XCTAssertEqual(key.stringValue, "payload")
        XCTAssertEqual(pathString(context.codingPath), "items.[1]")
    }

    func testWrongTypesAndNullsNameTheField() {
        guard case .typeMismatch(_, let context)? = decodingError(Envelope.self, #"{"convoId":"c","items":[{"id":"a","epoch":"1","tags":[],"payload":"AA=="}]}"#) else {
            return XCTFail("expected typeMismatch")
        }
        XCTAssertEqual(pathString(context.codingPath), "items.[0].epoch")
        guard case .valueNotFound(_, let nullContext)? = decodingError(Envelope.self, #"{"convoId":null,"items":[]}"#) else {
            return XCTFail("expected valueNotFound")
        }
        XCTAssertEqual(pathString(nullContext.codingPath), "convoId")
        guard case .typeMismatch(_, let tagContext)? = decodingError(Envelope.self, #"{"convoId":"c","items":[{"id":"a","epoch":1,"tags":["x",2],"payload":"AA=="}]}"#) else {
            return XCTFail("expected typeMismatch")
        }
        XCTAssertEqual(pathString(tagContext.codingPath), "items.[0].tags.[1]")
        guard case .typeMismatch? = decodingError(Envelope.self, "[]") else { return XCTFail("top-level array for a struct") }
    }

    func testNumbersThatDoNotFitAreRefused() {
        struct Small: Decodable { var small: Int8 }
        struct Whole: Decodable { var whole: Int }
        struct Real: Decodable { var real: Double }
        for text in [#"{"small":128}"#, #"{"small":-129}"#] {
            guard case .dataCorrupted(let context)? = decodingError(Small.self, text) else { return XCTFail(text) }
            XCTAssertEqual(pathString(context.codingPath), "small")
        }
        for text in [#"{"whole":1.5}"#, #"{"whole":9223372036854775808}"#, #"{"whole":1e300}"#] {
            guard case .dataCorrupted? = decodingError(Whole.self, text) else { return XCTFail(text) }
        }
        XCTAssertEqual(try? decode(Whole.self, #"{"whole":-0}"#).whole, 0)
        guard case .dataCorrupted? = decodingError(Real.self, #"{"real":1e400}"#) else { return XCTFail("1e400") }
        guard case .dataCorrupted? = decodingError(UInt.self, "-1") else { return XCTFail("-1 as UInt") }
    }

    func testBytesAcceptBothFormsAndRefuseBadBase64() throws {
        XCTAssertEqual(try decode(ATBytes.self, #"{"$bytes":"AAEC"}"#), ATBytes([0, 1, 2]))
        XCTAssertEqual(try decode([ATBytes].self, #"[{"$bytes":"AAEC"},"AAE=","AAE",{"$bytes":"A\u0041E"}]"#),
                       [ATBytes([0, 1, 2]), ATBytes([0, 1]), ATBytes([0, 1]), ATBytes([0, 1])])
        guard case .dataCorrupted(let context)? = decodingError([ATBytes].self, #"[{"$bytes":"@@"}]"#) else {
            return XCTFail("bad base64")
        }
        XCTAssertEqual(pathString(context.codingPath), "[0]")
        guard case .keyNotFound? = decodingError([ATBytes].self, #"[{"bytes":"AA"}]"#) else { return XCTFail("no $bytes") }
        guard case .typeMismatch? = decodingError([ATBytes].self, #"[{"$bytes":1}]"#) else { return XCTFail("number") }
        guard case .typeMismatch? = decodingError([ATBytes].self, "[7]") else { return XCTFail("number") }
    }

    func testUnkeyedContainerReportsItsEnd() {
        struct Pair: Decodable {
            var a: Int, b: Int
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                a = try container.decode(Int.self)
                b = try container.decode(Int.self)
            }
        }
        guard case .valueNotFound? = decodingError(Pair.self, "[1]") else { return XCTFail("at end") }
        XCTAssertEqual(try? decode(Pair.self, "[1,2]").b, 2)
    }
}

/// Decodes any JSON value and keeps nothing (to test the parser alone).
private struct JSONIgnored: Decodable {
    init(from decoder: any Decoder) throws {}
}
