import XCTest
@testable import MQTT

final class FrameSplitterTests: XCTestCase {
    static func frame(of bytes: [UInt8]) throws -> MQTTFrame {
        var splitter = FrameSplitter(maximumPacketSize: Int.max)
        splitter.append(bytes)
        return try XCTUnwrap(try splitter.next())
    }

    func testByteAtATime_YieldsEachPacketOnceComplete() throws {
        let packets = PacketCodecTests.samples
        let stream = packets.flatMap { $0.encoded() }
        var splitter = FrameSplitter(maximumPacketSize: 1 << 20)
        var decoded: [MQTTPacket] = []
        for byte in stream {
            splitter.append([byte])
            while let frame = try splitter.next() { decoded.append(try MQTTPacket.decode(frame)) }
        }
        XCTAssertEqual(decoded, packets)
        XCTAssertEqual(splitter.bufferedCount, 0)
    }

    func testManyPacketsInOneRead() throws {
        let stream = Array(repeating: MQTTPacket.pingreq.encoded(), count: 1000).flatMap { $0 }
        var splitter = FrameSplitter(maximumPacketSize: 16)
        splitter.append(stream)
        var count = 0
        while let frame = try splitter.next() {
            XCTAssertEqual(frame, MQTTFrame(firstByte: 0xC0, body: []))
            count += 1
        }
        XCTAssertEqual(count, 1000)
    }

    func testOversizedPacket_IsRefusedFromItsHeader_BeforeTheBody() {
        // MQTT 5.0 §3.2.2.3.6: a packet over our Maximum Packet Size is 0x95, known from the header alone.
        var splitter = FrameSplitter(maximumPacketSize: 100)
        splitter.append([0x30, 0xFF, 0xFF, 0xFF, 0x7F]) // a 256 MiB PUBLISH announced, nothing sent
        XCTAssertThrowsError(try splitter.next()) {
            XCTAssertEqual($0 as? MQTTError, .packetTooLarge(size: 1 + 4 + 268_435_455, maximum: 100))
            XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .packetTooLarge)
        }
        // Exactly at the limit passes; one byte over does not.
        var atLimit = FrameSplitter(maximumPacketSize: 10)
        atLimit.append([0x30, 0x08, 0x00, 0x01, 0x61, 1, 2, 3, 4, 5])
        XCTAssertNotNil(try atLimit.next())
        var over = FrameSplitter(maximumPacketSize: 10)
        over.append([0x30, 0x09])
        XCTAssertThrowsError(try over.next())
    }

    func testMalformedRemainingLength_AndReservedType() {
        var five = FrameSplitter(maximumPacketSize: Int.max)
        five.append([0x30, 0x80, 0x80, 0x80, 0x80])
        XCTAssertThrowsError(try five.next()) { XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket) }
        var partial = FrameSplitter(maximumPacketSize: Int.max)
        partial.append([0x30, 0x80, 0x80])
        XCTAssertNil(try partial.next()) // could still be a valid four-byte length
        var reserved = FrameSplitter(maximumPacketSize: Int.max)
        reserved.append([0x00])
        XCTAssertThrowsError(try reserved.next()) { XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket) }
        var flags = FrameSplitter(maximumPacketSize: Int.max)
        flags.append([0x83]) // SUBSCRIBE with flags 0011 [MQTT-3.8.1-1]
        XCTAssertThrowsError(try flags.next())
    }

    func testBufferIsReclaimed() throws {
        var splitter = FrameSplitter(maximumPacketSize: 1 << 20)
        let publish = MQTTPacket.publish(PublishPacket(topicName: "t", payload: [UInt8](repeating: 1, count: 10_000))).encoded()
        for _ in 0..<100 {
            splitter.append(publish + publish.prefix(3))
            XCTAssertNotNil(try splitter.next())
            XCTAssertLessThan(splitter.bufferedCount, publish.count)
            splitter.append(publish.dropFirst(3))
            XCTAssertNotNil(try splitter.next())
            XCTAssertEqual(splitter.bufferedCount, 0)
        }
    }
}
