import Basics
import XCTest
@testable import JSON

/// The direct reader and writer (`JSONObjectCodable`) against the Codable path they stand in for,
/// over every member type they read and write, and the errors a client sees from each.
final class JSONObjectCodingTests: XCTestCase {
    private struct Inner: Codable, Equatable, JSONObjectCodable {
        var name: String
        var rank: Int64?

        init(name: String, rank: Int64?) {
            self.name = name
            self.rank = rank
        }

        init(json object: JSONObjectReader) throws {
            name = try object.decode(String.self, forKey: CodingKeys.name)
            rank = try object.decodeIfPresent(Int64.self, forKey: CodingKeys.rank)
        }

        func encode(json object: inout JSONObjectWriter) {
            object.encode(name, forKey: CodingKeys.name)
            object.encodeIfPresent(rank, forKey: CodingKeys.rank)
        }
    }

    /// A Codable-only member type, read through the reader's generic `decode`.
    private enum Kind: String, Codable, Equatable { case app, commit }

    private struct Probe: Codable, Equatable, JSONObjectDecodable {
        var text: String
        var flag: Bool
        var count: Int
        var big: Int64
        var small: UInt32
        var bytes: ATBytes
        var tags: [String]
        var inner: Inner
        var inners: [Inner]
        var kind: Kind
        var maybeText: String?
        var maybeFlag: Bool?
        var maybeCount: Int?
        var maybeBig: Int64?
        var maybeSmall: UInt32?
        var maybeBytes: ATBytes?
        var maybeTags: [String]?
        var maybeInner: Inner?
        var maybeInners: [Inner]?
        var maybeKind: Kind?

        init(json object: JSONObjectReader) throws {
            text = try object.decode(String.self, forKey: CodingKeys.text)
            flag = try object.decode(Bool.self, forKey: CodingKeys.flag)
            count = try object.decode(Int.self, forKey: CodingKeys.count)
            big = try object.decode(Int64.self, forKey: CodingKeys.big)
            small = try object.decode(UInt32.self, forKey: CodingKeys.small)
            bytes = try object.decode(ATBytes.self, forKey: CodingKeys.bytes)
            tags = try object.decode([String].self, forKey: CodingKeys.tags)
            inner = try object.decode(Inner.self, forKey: CodingKeys.inner)
            inners = try object.decode([Inner].self, forKey: CodingKeys.inners)
            kind = try object.decode(Kind.self, forKey: CodingKeys.kind)
            maybeText = try object.decodeIfPresent(String.self, forKey: CodingKeys.maybeText)
            maybeFlag = try object.decodeIfPresent(Bool.self, forKey: CodingKeys.maybeFlag)
            maybeCount = try object.decodeIfPresent(Int.self, forKey: CodingKeys.maybeCount)
            maybeBig = try object.decodeIfPresent(Int64.self, forKey: CodingKeys.maybeBig)
            maybeSmall = try object.decodeIfPresent(UInt32.self, forKey: CodingKeys.maybeSmall)
            maybeBytes = try object.decodeIfPresent(ATBytes.self, forKey: CodingKeys.maybeBytes)
            maybeTags = try object.decodeIfPresent([String].self, forKey: CodingKeys.maybeTags)
            maybeInner = try object.decodeIfPresent(Inner.self, forKey: CodingKeys.maybeInner)
            maybeInners = try object.decodeIfPresent([Inner].self, forKey: CodingKeys.maybeInners)
            maybeKind = try object.decodeIfPresent(Kind.self, forKey: CodingKeys.maybeKind)
        }
    }

    /// Every member type the writer has, present and absent.
    private struct Written: Codable, Equatable, JSONObjectEncodable {
        var text: String
        var flag: Bool
        var count: Int
        var big: Int64
        var small: UInt32
        var bytes: ATBytes
        var tags: [String]
        var inner: Inner
        var inners: [Inner]
        var maybeText: String?
        var maybeFlag: Bool?
        var maybeCount: Int?
        var maybeBig: Int64?
        var maybeSmall: UInt32?
        var maybeBytes: ATBytes?
        var maybeTags: [String]?
        var maybeInner: Inner?
        var maybeInners: [Inner]?

        func encode(json object: inout JSONObjectWriter) {
            object.encode(text, forKey: CodingKeys.text)
            object.encode(flag, forKey: CodingKeys.flag)
            object.encode(count, forKey: CodingKeys.count)
            object.encode(big, forKey: CodingKeys.big)
            object.encode(small, forKey: CodingKeys.small)
            object.encode(bytes, forKey: CodingKeys.bytes)
            object.encode(tags, forKey: CodingKeys.tags)
            object.encode(inner, forKey: CodingKeys.inner)
            object.encode(inners, forKey: CodingKeys.inners)
            object.encodeIfPresent(maybeText, forKey: CodingKeys.maybeText)
            object.encodeIfPresent(maybeFlag, forKey: CodingKeys.maybeFlag)
            object.encodeIfPresent(maybeCount, forKey: CodingKeys.maybeCount)
            object.encodeIfPresent(maybeBig, forKey: CodingKeys.maybeBig)
            object.encodeIfPresent(maybeSmall, forKey: CodingKeys.maybeSmall)
            object.encodeIfPresent(maybeBytes, forKey: CodingKeys.maybeBytes)
            object.encodeIfPresent(maybeTags, forKey: CodingKeys.maybeTags)
            object.encodeIfPresent(maybeInner, forKey: CodingKeys.maybeInner)
            object.encodeIfPresent(maybeInners, forKey: CodingKeys.maybeInners)
        }
    }

    private static let sample = Array(#"""
        {"text":"a\"b\\c\u00e9\ud83d\ude00","flag":true,"count":-3,"big":9007199254740993,"small":4294967295,"bytes":{"$bytes":"AAEC"},
         "tags":["x","y"],"inner":{"name":"n","rank":1},"inners":[{"name":"p"},{"name":"q","rank":null}],"kind":"app",
         "maybeText":"t","maybeFlag":false,"maybeCount":0,"maybeBig":-9223372036854775808,"maybeSmall":0,"maybeBytes":"AAEC",
         "maybeTags":[],"maybeInner":{"name":"m","rank":2},"maybeInners":[],"maybeKind":"commit","extra":[1,{"a":null}]}
        """#.utf8)

    func testDecodingAgreesWithCodableOnEveryVariant() {
        // Two of the three counts guard the test itself: variants that decode and variants refused.
        let documents = DirectCodingAgreement.variants(of: Self.sample)
        let (decoded, refused) = DirectCodingAgreement.assertAgree(Probe.self, on: documents)
        XCTAssertGreaterThan(decoded, 50)
        XCTAssertGreaterThan(refused, 500)
    }

    func testEncodingWritesTheBytesCodableWrites() throws {
        let inner = Inner(name: "é\"\u{1}/", rank: -5)
        let full = Written(
            text: "line\nbreak", flag: false, count: Int.min, big: Int64.max, small: UInt32.max, bytes: ATBytes([0, 255, 7]),
            tags: ["", "a\\b"], inner: inner, inners: [inner, Inner(name: "b", rank: nil)],
            maybeText: "", maybeFlag: true, maybeCount: 0, maybeBig: -1, maybeSmall: 7, maybeBytes: ATBytes([]),
            maybeTags: ["t"], maybeInner: inner, maybeInners: [])
        var empty = full
        (empty.maybeText, empty.maybeFlag, empty.maybeCount, empty.maybeBig, empty.maybeSmall) = (nil, nil, nil, nil, nil)
        (empty.maybeBytes, empty.maybeTags, empty.maybeInner, empty.maybeInners) = (nil, nil, nil, nil)
        for value in [full, empty] {
            let direct = try StrictJSON.encode(value)
            XCTAssertEqual(String(decoding: direct, as: UTF8.self),
                           String(decoding: try StrictJSON.encode(value, objects: .codable), as: UTF8.self))
        }
        // Nested in Codable containers (an array, an optional member), the direct path is taken too.
        struct Outer: Codable { var list: [Written]; var one: Written? }
        let outer = Outer(list: [full, empty], one: full)
        XCTAssertEqual(try StrictJSON.encode(outer), try StrictJSON.encode(outer, objects: .codable))
        XCTAssertEqual(try StrictJSON.encode([empty]), try StrictJSON.encode([empty], objects: .codable))
    }

    func testErrorsNameTheFieldAsCodableDoes() throws {
        func failure(_ text: String) -> String {
            do {
                _ = try StrictJSON.decode(Probe.self, from: Array(text.utf8))
                return "decoded"
            } catch let error as DecodingError {
                switch error {
                case .keyNotFound(let key, let context): return "missing " + path(context.codingPath + [key])
                case .typeMismatch(_, let context), .valueNotFound(_, let context): return "type " + path(context.codingPath)
                case .dataCorrupted(let context): return "corrupt " + path(context.codingPath)
                @unknown default: return "?"
                }
            } catch {
                return "parse"
            }
        }
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        let sample = String(decoding: Self.sample, as: UTF8.self)
        XCTAssertEqual(failure(sample), "decoded")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""count":-3,"#, with: "")), "missing count")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""count":-3"#, with: #""count":null"#)), "type count")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""count":-3"#, with: #""count":1.5"#)), "corrupt count")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #"{"name":"p"}"#, with: "{}")), "missing inners.[0].name")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #"{"name":"p"}"#, with: "7")), "type inners.[0]")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""rank":null"#, with: #""rank":"1""#)), "type inners.[1].rank")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""maybeBytes":"AAEC""#, with: #""maybeBytes":"!""#)), "corrupt maybeBytes")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""kind":"app""#, with: #""kind":"other""#)), "corrupt kind")
        XCTAssertEqual(failure(sample.replacingOccurrences(of: #""extra""#, with: #""text""#)), "parse")
        XCTAssertEqual(failure("[]"), "type ")
    }
}
