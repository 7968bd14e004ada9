import Basics
import Foundation
import XCTest
@testable import JSON

final class StrictJSONEncoderTests: XCTestCase {
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
        var ratio: Double
        var flags: [Bool?]
        var empty: [String: Int]
    }

    private func text(_ value: some Encodable) throws -> String {
        String(decoding: try StrictJSON.encode(value), as: UTF8.self)
    }

    private func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Foundation on Linux writes object members in hash order, so texts compare as parsed JSON.
    private func assertSameJSON(_ ours: String, _ theirs: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let a = try JSONSerialization.jsonObject(with: Data(ours.utf8), options: .fragmentsAllowed) as? NSObject
        let b = try JSONSerialization.jsonObject(with: Data(theirs.utf8), options: .fragmentsAllowed) as? NSObject
        XCTAssertNotNil(a, file: file, line: line)
        XCTAssertEqual(a, b, "\(ours) vs \(theirs)", file: file, line: line)
    }

    func testWritesWhatFoundationWrites() throws {
        let value = Envelope(convoId: "c/1 \"q\" \\ é😀\n\t\u{1}", items: [
            Item(id: "a", epoch: -3, tags: ["x", ""], payload: ATBytes([0, 1, 2, 3]), note: nil),
            Item(id: "b", epoch: Int64.max, tags: [], payload: ATBytes([]), note: "n"),
        ], ratio: 2.0, flags: [true, nil, false], empty: [:])
        let ours = try text(value)
        try assertSameJSON(ours, try foundation(value))
        // Members in declaration order; optionals that are nil left out.
        XCTAssertTrue(ours.hasPrefix(#"{"convoId":"c/1 \"q\" \\ é😀\n\t\u0001","items":[{"id":"a","epoch":-3,"tags":["x",""],"payload":{"$bytes":"AAECAw"}},"#), ours)
        XCTAssertEqual(try StrictJSON.decode(Envelope.self, from: Array(ours.utf8)), value)
    }

    /// Far past the output's first 1 KB: every growth step keeps what was written before it.
    func testLargeOutput_GrowsWithoutLosingBytes() throws {
        var random = SplitMix64(seed: 0xB16)
        let items = (0..<400).map { index in
            Item(id: "item \(index) \"q\" é", epoch: Int64(bitPattern: random.next()), tags: (0..<(index % 5)).map { "t\($0)" },
                 payload: ATBytes((0..<(index * 7 % 3000)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
                 note: index % 3 == 0 ? nil : String(repeating: "n", count: index))
        }
        let value = Envelope(convoId: "big", items: items, ratio: 0.25, flags: [], empty: [:])
        let ours = try text(value)
        XCTAssertGreaterThan(ours.utf8.count, 1 << 19)
        try assertSameJSON(ours, try foundation(value))
        XCTAssertEqual(try StrictJSON.decode(Envelope.self, from: Array(ours.utf8)), value)
    }

    func testNumbers() throws {
        XCTAssertEqual(try text([1.0, -0.5, 1e21, 123456.789]), try foundation([1.0, -0.5, 1e21, 123456.789]))
        XCTAssertEqual(try text([Int64.min, 0, Int64.max]), "[-9223372036854775808,0,9223372036854775807]")
        XCTAssertEqual(try text([UInt8.max]), "[255]")
        XCTAssertEqual(try text([Float(0.1)]), try foundation([Float(0.1)]))
        XCTAssertThrowsError(try StrictJSON.encode([Double.nan]))
        XCTAssertThrowsError(try StrictJSON.encode(["x": Double.infinity]))
    }

    func testControlCharactersAreEscaped() throws {
        let all = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let encoded = try StrictJSON.encode(all)
        XCTAssertFalse(encoded.dropFirst().dropLast().contains { $0 < 0x20 })
        XCTAssertEqual(try StrictJSON.decode(String.self, from: encoded), all)
        XCTAssertEqual(try text("\u{8}\u{c}\u{1f}"), #""\b\f\u001f""#)
    }

    func testScalarsAtTopLevel() throws {
        XCTAssertEqual(try text("a"), #""a""#)
        XCTAssertEqual(try text(7), "7")
        XCTAssertEqual(try text(Optional<Int>.none), "null")
        XCTAssertEqual(try text([String]()), "[]")
    }

    /// Custom conformances that use nested containers, reopen a container, or write nothing.
    private struct Custom: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: JSONAnyKey.self)
            try outer.encode(1, forKey: JSONAnyKey("a"))
            var nested = outer.nestedContainer(keyedBy: JSONAnyKey.self, forKey: JSONAnyKey("n"))
            try nested.encode(true, forKey: JSONAnyKey("t"))
            var list = nested.nestedUnkeyedContainer(forKey: JSONAnyKey("l"))
            try list.encode("x")
            var inner = list.nestedContainer(keyedBy: JSONAnyKey.self)
            try inner.encodeNil(forKey: JSONAnyKey("z"))
            // Writing to the outer container closes the nested ones.
            try outer.encode(Nothing(), forKey: JSONAnyKey("e"))
            var again = encoder.container(keyedBy: JSONAnyKey.self)
            try again.encode("last", forKey: JSONAnyKey("b"))
        }
    }

    private struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    func testNestedContainersAreClosedInOrder() throws {
        let encoded = try text(Custom())
        XCTAssertEqual(encoded, #"{"a":1,"n":{"t":true,"l":["x",{"z":null}]},"e":{},"b":"last"}"#)
        try assertSameJSON(encoded, try foundation(Custom()))
    }

    private struct OutOfOrder: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: JSONAnyKey.self)
            var first = outer.nestedContainer(keyedBy: JSONAnyKey.self, forKey: JSONAnyKey("first"))
            try outer.encode(1, forKey: JSONAnyKey("second"))
            try first.encode(2, forKey: JSONAnyKey("late"))
        }
    }

    private struct TwoValues: Encodable {
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(1)
            try single.encode(2)
        }
    }

    private struct UsesSuper: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: JSONAnyKey.self)
            var single = outer.superEncoder().singleValueContainer()
            try single.encode(1)
        }
    }

    func testMisuseFailsInsteadOfWritingBadJSON() {
        XCTAssertThrowsError(try StrictJSON.encode(OutOfOrder()))
        XCTAssertThrowsError(try StrictJSON.encode(TwoValues()))
        XCTAssertThrowsError(try StrictJSON.encode(UsesSuper()))
        XCTAssertThrowsError(try StrictJSON.encode(Nothing()), "top level wrote nothing")
    }

    func testCodingPathIsTracked() throws {
        struct Probe: Encodable {
            let seen: Box
            func encode(to encoder: any Encoder) throws {
                seen.paths.append(encoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "."))
                var container = encoder.singleValueContainer()
                try container.encode(0)
            }
        }
        final class Box { var paths: [String] = [] }
        struct Holder: Encodable { var list: [Probe] }
        let box = Box()
        _ = try StrictJSON.encode(Holder(list: [Probe(seen: box), Probe(seen: box)]))
        XCTAssertEqual(box.paths, ["list.[0]", "list.[1]"])
    }
}

struct JSONAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
