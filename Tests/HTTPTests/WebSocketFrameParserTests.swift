import XCTest
@testable import HTTP

final class WebSocketFrameParserTests: XCTestCase {
    private let key: [UInt8] = [0x01, 0x82, 0x43, 0xF4]
    private let parser = WebSocketFrameParser(maxPayloadSize: 1 << 20)

    private func assertThrows(_ bytes: [UInt8], _ expected: WebSocketProtocolError, parser: WebSocketFrameParser? = nil,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try (parser ?? self.parser).parse(bytes), file: file, line: line) {
            XCTAssertEqual($0 as? WebSocketProtocolError, expected, file: file, line: line)
        }
    }

    func testMaskedFrames_RoundTripAtEveryLengthBoundary() throws {
        for count in [0, 1, 7, 8, 9, 125, 126, 127, 65_535, 65_536, 70_000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let wire = WebSocketFrame.encode(opcode: .binary, payload: payload, maskingKey: key)
            XCTAssertEqual(wire.count, count + 2 + 4 + (count < 126 ? 0 : count <= 65_535 ? 2 : 8))
            let (consumed, frame) = try parser.parse(wire + [0xFF])
            XCTAssertEqual(consumed, wire.count)
            XCTAssertEqual(frame, WebSocketFrame(opcode: .binary, payload: payload))
        }
    }

    func testRFCExample_MaskedHello() throws {
        // RFC 6455 §5.7: a single-frame masked text message containing "Hello".
        let wire: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let (consumed, frame) = try parser.parse(wire)
        XCTAssertEqual(consumed, 11)
        XCTAssertEqual(frame, WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)))
        // And the unmasked form a server sends.
        XCTAssertEqual(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(), [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    func testTruncatedFrames_NeedMoreInput() throws {
        for count in [0, 5, 300, 70_000] {
            let wire = WebSocketFrame.encode(opcode: .text, payload: [UInt8](repeating: 0x61, count: count), maskingKey: key)
            for end in 0..<wire.count {
                let (consumed, frame) = try parser.parse(Array(wire[0..<end]))
                XCTAssertEqual(consumed, 0)
                XCTAssertNil(frame)
            }
        }
    }

    func testReservedBitsAndOpcodes_AreProtocolErrors() {
        assertThrows([0x81 | 0x40, 0x80, 0, 0, 0, 0], .reservedBitsSet)
        assertThrows([0x81 | 0x10, 0x80, 0, 0, 0, 0], .reservedBitsSet)
        for opcode: UInt8 in [0x3, 0x7, 0xB, 0xF] {
            assertThrows([0x80 | opcode, 0x80, 0, 0, 0, 0], .reservedOpcode(opcode))
        }
        XCTAssertEqual(WebSocketProtocolError.reservedBitsSet.closeCode, .protocolError)
    }

    func testUnmaskedClientFrame_IsRejected_UnlessParsingServerFrames() throws {
        let wire = WebSocketFrame.encode(opcode: .text, payload: Array("hi".utf8))
        assertThrows(wire, .unmaskedFrame)
        let (_, frame) = try WebSocketFrameParser(maxPayloadSize: 16, requireMask: false).parse(wire)
        XCTAssertEqual(frame?.payload, Array("hi".utf8))
    }

    func testControlFrames_MustBeShortAndFinal() {
        assertThrows(WebSocketFrame.encode(fin: false, opcode: .ping, payload: [], maskingKey: key), .invalidControlFrame)
        assertThrows(WebSocketFrame.encode(opcode: .ping, payload: [UInt8](repeating: 0, count: 126), maskingKey: key), .invalidControlFrame)
        assertThrows(WebSocketFrame.encode(opcode: .close, payload: [UInt8](repeating: 0, count: 200), maskingKey: key), .invalidControlFrame)
    }

    func testNonMinimalOrOverflowingLengths_AreRejected() {
        assertThrows([0x82, 0x80 | 126, 0x00, 0x7D] + key, .invalidLength)
        assertThrows([0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + key, .invalidLength)
        assertThrows([0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1] + key, .invalidLength)
    }

    func testOversizedFrame_IsRejectedFromItsHeaderAlone() {
        let small = WebSocketFrameParser(maxPayloadSize: 1000)
        assertThrows([0x82, 0x80 | 126, 0x03, 0xE9], .messageTooBig, parser: small)
        assertThrows([0x82, 0x80 | 127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .messageTooBig, parser: small)
        assertThrows([0x82, 0x80 | 126, 0x03, 0xE9], .messageTooBig, parser: small)
        XCTAssertEqual(WebSocketProtocolError.messageTooBig.closeCode, .messageTooBig)
    }

    func testRandomInput_NeverCrashesAndNeverOverConsumes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let (consumed, frame) = try? parser.parse(bytes) {
                XCTAssertLessThanOrEqual(consumed, bytes.count)
                XCTAssertEqual(frame == nil, consumed == 0)
            }
        }
    }

    // MARK: Messages

    func testFragments_JoinWithControlFramesInBetween() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertNil(try assembler.receive(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8))))
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .ping, payload: [1])), .ping([1]))
        XCTAssertNil(try assembler.receive(WebSocketFrame(fin: false, opcode: .continuation, payload: Array("lo ".utf8))))
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: Array("wörld".utf8))), .text("Hello wörld"))
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .binary, payload: [9])), .binary([9]))
    }

    func testContinuationOrder_IsEnforced() {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: []))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .unexpectedContinuation)
        }
        XCTAssertNil(try assembler.receive(WebSocketFrame(fin: false, opcode: .binary, payload: [1])))
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .text, payload: []))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .expectedContinuation)
        }
    }

    func testMessageSize_CountsAllFragments() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 10)
        XCTAssertNil(try assembler.receive(WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6))))
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 5)))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .messageTooBig)
        }
    }

    func testInvalidUTF8_InTextOrCloseReason_Is1007() {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        for payload: [UInt8] in [[0xC3], [0xED, 0xA0, 0x80], [0xFF], [0x61, 0xC0, 0xAF]] {
            XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .text, payload: payload))) {
                XCTAssertEqual(($0 as? WebSocketProtocolError)?.closeCode, .invalidFramePayloadData)
            }
        }
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .invalidUTF8)
        }
    }

    func testClosePayloads() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .close)), .close(nil, reason: ""))
        XCTAssertEqual(try assembler.receive(WebSocketFrame.close(code: .goingAway, reason: "bye")), .close(.goingAway, reason: "bye"))
        XCTAssertEqual(try assembler.receive(WebSocketFrame.close(code: WebSocketCloseCode(rawValue: 4000))), .close(WebSocketCloseCode(rawValue: 4000), reason: ""))
        for payload: [UInt8] in [[0x03], [0x03, 0xED], [0x03, 0xEE], [0x03, 0xE7], [0x03, 0xF7], [0x13, 0x88]] {
            XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .close, payload: payload))) {
                XCTAssertEqual($0 as? WebSocketProtocolError, .invalidCloseCode)
            }
        }
    }

    func testCloseReason_IsCutWithoutSplittingCharacters() {
        let frame = WebSocketFrame.close(code: .normalClosure, reason: String(repeating: "é", count: 100))
        XCTAssertLessThanOrEqual(frame.payload.count, 125)
        XCTAssertNotNil(String(validating: frame.payload[2...], as: UTF8.self))
    }

    func testHandshake_AcceptValueFromRFC() {
        // RFC 6455 §1.3.
        XCTAssertEqual(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testHandshake_Validation() {
        func head(_ headers: HTTPHeaders, method: HTTPMethod = .get) -> HTTPRequestHead {
            HTTPRequestHead(method: method, target: "/ws", headers: headers)
        }
        let good: HTTPHeaders = ["Host": "t", "Upgrade": "websocket", "Connection": "keep-alive, Upgrade",
                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"]
        XCTAssertTrue(WebSocketHandshake.isUpgradeRequest(head(good)))
        XCTAssertEqual(try? WebSocketHandshake.validate(head(good)).get(), "dGhlIHNhbXBsZSBub25jZQ==")
        var badVersion = good
        badVersion.replace("Sec-WebSocket-Version", "8")
        guard case let .failure(refusal) = WebSocketHandshake.validate(head(badVersion)) else { return XCTFail() }
        XCTAssertEqual(refusal.response.status, 426)
        XCTAssertEqual(refusal.response.headers["Sec-WebSocket-Version"], "13")
        var shortKey = good
        shortKey.replace("Sec-WebSocket-Key", "c2hvcnQ=")
        guard case let .failure(keyRefusal) = WebSocketHandshake.validate(head(shortKey)) else { return XCTFail() }
        XCTAssertEqual(keyRefusal.response.status, 400)
        var noConnection = good
        noConnection.remove("Connection")
        guard case .failure = WebSocketHandshake.validate(head(noConnection)) else { return XCTFail() }
        guard case .failure = WebSocketHandshake.validate(head(good, method: .post)) else { return XCTFail() }
    }
}
