import ChatProtocol
import XCTest

final class DAGCBORTests: XCTestCase {
    func testIntegersUseTheirShortestForm() {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0x00]), (23, [0x17]), (24, [0x18, 0x18]), (255, [0x18, 0xFF]), (256, [0x19, 0x01, 0x00]),
            (65_535, [0x19, 0xFF, 0xFF]), (65_536, [0x1A, 0x00, 0x01, 0x00, 0x00]),
            (1 << 32, [0x1B, 0, 0, 0, 1, 0, 0, 0, 0]),
        ]
        for (number, bytes) in cases {
            XCTAssertEqual(DAGCBOR.encode(.unsigned(number)), bytes, "\(number)")
            XCTAssertEqual(try DAGCBOR.decode(bytes), .unsigned(number))
        }
    }

    func testMapKeysAreOrderedShortestFirstThenBytewise() {
        let value = DAGCBORValue.map(["bb": .unsigned(2), "c": .unsigned(3), "a": .unsigned(1), "$type": .text("x")])
        let bytes = DAGCBOR.encode(value)
        // a, c, bb, $type: length first.
        XCTAssertEqual(bytes, [0xA4, 0x61, 0x61, 0x01, 0x61, 0x63, 0x03, 0x62, 0x62, 0x62, 0x02,
                               0x65, 0x24, 0x74, 0x79, 0x70, 0x65, 0x61, 0x78])
        XCTAssertEqual(try DAGCBOR.decode(bytes), value)
    }

    func testRoundTripOfEveryKind() throws {
        let value = DAGCBORValue.map([
            "text": .text("héllo"), "bytes": .bytes(Array(0..<40)), "yes": .bool(true), "no": .bool(false),
            "list": .array([.unsigned(1), .array([]), .map([:])]), "big": .unsigned(UInt64.max),
        ])
        XCTAssertEqual(try DAGCBOR.decode(DAGCBOR.encode(value)), value)
    }

    func testTheDecoderRefusesWhatIsNotCanonicalOrOutsideTheProfile() {
        let refused: [(String, [UInt8])] = [
            ("non-minimal integer", [0x18, 0x05]),
            ("non-minimal length", [0x58, 0x01, 0xAA]),
            ("indefinite array", [0x9F, 0x01, 0xFF]),
            ("indefinite text", [0x7F, 0x61, 0x61, 0xFF]),
            ("negative integer", [0x20]),
            ("half float", [0xF9, 0x3C, 0x00]),
            ("double", [0xFB, 0, 0, 0, 0, 0, 0, 0, 0]),
            ("null", [0xF6]),
            ("undefined", [0xF7]),
            ("tag (CID)", [0xD8, 0x2A, 0x41, 0x00]),
            ("trailing byte", [0x01, 0x01]),
            ("keys out of order", [0xA2, 0x62, 0x61, 0x61, 0x01, 0x61, 0x62, 0x02]),
            ("repeated key", [0xA2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]),
            ("integer key", [0xA1, 0x01, 0x02]),
            ("invalid UTF-8", [0x62, 0xC3, 0x28]),
            ("truncated string", [0x45, 0x01, 0x02]),
            ("array longer than the input", [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("map longer than the input", [0xBA, 0x7F, 0xFF, 0xFF, 0xFF, 0x01]),
            ("empty", []),
        ]
        for (what, bytes) in refused {
            XCTAssertThrowsError(try DAGCBOR.decode(bytes), what)
        }
    }

    func testNestingIsBounded() {
        let deep = [UInt8](repeating: 0x81, count: DAGCBOR.maxDepth + 1) + [0x00]
        XCTAssertThrowsError(try DAGCBOR.decode(deep))
        let fine = [UInt8](repeating: 0x81, count: DAGCBOR.maxDepth) + [0x00]
        XCTAssertNoThrow(try DAGCBOR.decode(fine))
    }

    func testASequenceOfTwoMapsIsAFrame() throws {
        let header = DAGCBORValue.map(["op": .unsigned(1), "t": .text("blue.catbird.chat.defs#eventEnvelope")])
        let body = DAGCBORValue.map(["cursor": .text("c")])
        let frame = DAGCBOR.encode(header) + DAGCBOR.encode(body)
        XCTAssertEqual(try DAGCBOR.decodeSequence(frame, maxItems: 2), [header, body])
        XCTAssertThrowsError(try DAGCBOR.decodeSequence(frame + DAGCBOR.encode(body), maxItems: 2))
    }
}
