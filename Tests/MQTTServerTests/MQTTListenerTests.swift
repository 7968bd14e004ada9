import Foundation
import HTTP
import MQTT
import MQTTClient
import MQTTServer
import XCTest

/// The MQTT listener over real sockets: the protocol core behind `MQTTStreamSession` on the HTTP
/// server's loops, with a loopback broker. Hostile bytes close the connection with the right Reason
/// Code and never take the server down.
final class MQTTListenerTests: XCTestCase {
    private var server: LoopbackMQTTServer!

    override func setUpWithError() throws {
        var configuration = MQTTServerConfiguration()
        configuration.maximumPacketSize = 4096
        configuration.connectTimeout = 1_000_000_000
        server = try LoopbackMQTTServer(broker: LoopbackBroker(configuration: configuration))
    }

    override func tearDown() {
        server.shutdown()
    }

    private func client(_ id: String = "c1", user: String = "ok") throws -> MQTTClient {
        try MQTTClient(host: "127.0.0.1", port: server.port, options: MQTTClient.Options(clientIdentifier: id, userName: user))
    }

    private func disconnectCode(_ packets: [MQTTPacket]) -> ReasonCode? {
        guard case .disconnect(let disconnect)? = packets.last else { return nil }
        return disconnect.reasonCode
    }

    /// After every hostile case the server still serves a well-behaved client.
    private func assertServerAlive(file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try client("probe")
        XCTAssertEqual(try probe.publish(topic: "alive", payload: [1])?.reasonCode, .success, file: file, line: line)
    }

    func testPublishSubscribe_AndARefusalWithItsReasonString() throws {
        let subscriber = try client("sub")
        XCTAssertEqual(try subscriber.subscribe("a/b"), .grantedQoS1)
        let publisher = try client("pub")
        XCTAssertEqual(try publisher.publish(topic: "a/b", payload: Array("hi".utf8))?.reasonCode, .success)
        let message = try XCTUnwrap(try subscriber.receive(timeout: 5))
        XCTAssertEqual(message.topic, "a/b")
        XCTAssertEqual(message.payload, Array("hi".utf8))
        XCTAssertEqual(message.qos, .atLeastOnce)
        let refused = try XCTUnwrap(try publisher.publish(topic: "refuse/x", payload: [1]))
        XCTAssertEqual(refused.reasonCode, .notAuthorized)
        XCTAssertEqual(refused.properties.reasonString, "refused")
    }

    /// While the broker takes no more work from a connection (its delegate's `acceptsInput` is
    /// false), the listener reads no more from it: a client pipelining QoS 0 publishes gets no
    /// further than what one read held; once the broker resumes input, the rest arrives.
    func testADelegateTakingNoMoreInput_PausesReading_UntilItResumes() throws {
        server.broker.holdInput(true)
        let raw = try RawMQTT(port: server.port)
        try raw.connect()
        let publish = MQTTPacket.publish(PublishPacket(topicName: "a/b", payload: Array(repeating: 7, count: 1000), qos: .atMostOnce)).encoded()
        nonisolated(unsafe) let writer = raw
        let written = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<2000 { try? writer.send(publish) }
            written.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.5)
        let held = server.broker.publishCount
        XCTAssertGreaterThan(held, 0)
        XCTAssertLessThan(held, 200, "about one read (64 KiB) of publishes, then nothing is read")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(server.broker.publishCount, held, "nothing more while the broker holds input")
        server.broker.holdInput(false)
        for _ in 0..<1000 where server.broker.publishCount < 2000 { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(server.broker.publishCount, 2000)
        XCTAssertEqual(written.wait(timeout: .now() + 10), .success)
    }

    func testBadCredentials_GetACONNACKThenClose() throws {
        XCTAssertThrowsError(try client(user: "nobody")) { error in
            XCTAssertEqual(error as? MQTTClient.Failure, .refused(.badUserNameOrPassword, "who are you"))
        }
    }

    func testPacketsBeforeCONNECT_CloseWithoutCONNACK() throws {
        for bytes: [UInt8] in [[0xC0, 0x00], [0x30, 0x03, 0x00, 0x01, 0x61], [0x00, 0x00], [0xE0, 0x00]] {
            let raw = try RawMQTT(port: server.port)
            try raw.send(bytes)
            XCTAssertEqual(try raw.packetsUntilClosed(), [], "\(bytes): closed with nothing sent")
        }
        try assertServerAlive()
    }

    func testTruncatedCONNECT_IsClosedAtTheConnectTimeout() throws {
        let raw = try RawMQTT(port: server.port)
        let connect = MQTTPacket.connect(ConnectPacket(clientIdentifier: "x", userName: "ok")).encoded()
        try raw.send(Array(connect.prefix(connect.count - 3)))
        let started = Date()
        XCTAssertEqual(try raw.packetsUntilClosed(timeout: 10), [])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5)
    }

    func testMalformedCONNECT_GetsCONNACK0x81() throws {
        var connect = MQTTPacket.connect(ConnectPacket(clientIdentifier: "x", userName: "ok")).encoded()
        // The Connect Flags' reserved bit 0 (§3.1.2.3 [MQTT-3.1.2-3]): byte 9 of the packet.
        connect[9] |= 0x01
        let raw = try RawMQTT(port: server.port)
        try raw.send(connect)
        guard case .connack(let connack)? = try raw.packetsUntilClosed().first else { return XCTFail("no CONNACK") }
        XCTAssertEqual(connack.reasonCode, .malformedPacket)
    }

    func testMQTT311_GetsItsOwnRefusal() throws {
        // MQTT 3.1.1 CONNECT: protocol level 4.
        var bytes: [UInt8] = []
        let stream = try ClientByteStream.connect(host: "127.0.0.1", port: server.port, tls: false)
        try stream.write([0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3C, 0x00, 0x01, 0x61])
        while true {
            let chunk = try stream.read(timeout: 5)
            if chunk.isEmpty { break }
            bytes += chunk
        }
        XCTAssertEqual(bytes, [0x20, 0x02, 0x00, 0x01])
    }

    func testHostilePacketsAfterCONNACK_DisconnectWithTheirCode() throws {
        let cases: [(String, [UInt8], ReasonCode)] = [
            ("Remaining Length in five bytes", [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .malformedPacket),
            ("larger than Maximum Packet Size", [0x30, 0x80, 0x40] + [UInt8](repeating: 0, count: 16), .packetTooLarge),
            ("bad UTF-8 in the Topic Name", [0x30, 0x05, 0x00, 0x02, 0xC3, 0x28, 0x00], .malformedPacket),
            ("SUBSCRIBE with reserved flags 0", [0x80, 0x08, 0x00, 0x01, 0x00, 0x00, 0x02, 0x61, 0x62, 0x01], .malformedPacket),
            ("PUBACK with flag bit set", [0x41, 0x02, 0x00, 0x01], .malformedPacket),
            ("truncated PUBLISH fields", [0x32, 0x02, 0x00, 0x05], .malformedPacket),
            ("second CONNECT", MQTTPacket.connect(ConnectPacket(clientIdentifier: "y", userName: "ok")).encoded(), .protocolError),
            ("reserved packet type 0", [0x00, 0x00], .malformedPacket),
            ("QoS 3 PUBLISH", [0x36, 0x05, 0x00, 0x01, 0x61, 0x00, 0x01], .malformedPacket),
            ("Topic Name with a wildcard", [0x30, 0x04, 0x00, 0x01, 0x23, 0x00], .topicNameInvalid),
            ("AUTH without a method", [0xF0, 0x00], .protocolError),
        ]
        for (name, bytes, code) in cases {
            let raw = try RawMQTT(port: server.port)
            XCTAssertEqual(try raw.connect().reasonCode, .success)
            try raw.send(bytes)
            XCTAssertEqual(disconnectCode(try raw.packetsUntilClosed()), code, name)
        }
        try assertServerAlive()
    }

    func testKeepAlive_ClosesASilentClientWith0x8D() throws {
        let raw = try RawMQTT(port: server.port)
        XCTAssertEqual(try raw.connect(keepAlive: 1).reasonCode, .success)
        XCTAssertEqual(disconnectCode(try raw.packetsUntilClosed(timeout: 5)), .keepAliveTimeout)
    }

    func testRandomBytesAfterCONNACK_NeverCrashTheServer() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let raw = try RawMQTT(port: server.port)
            XCTAssertEqual(try raw.connect().reasonCode, .success)
            let count = Int.random(in: 1...300, using: &generator)
            try? raw.send((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            // Whatever it sends back, it ends with a DISCONNECT or keeps the connection (waiting for more).
            _ = try? raw.next(timeout: 0.2)
        }
        try assertServerAlive()
    }

    func testShutdown_SendsDISCONNECT0x8B() throws {
        let raw = try RawMQTT(port: server.port)
        XCTAssertEqual(try raw.connect().reasonCode, .success)
        let done = DispatchSemaphore(value: 0)
        let httpServer = server.server
        DispatchQueue.global().async {
            httpServer.shutdown()
            done.signal()
        }
        XCTAssertEqual(disconnectCode(try raw.packetsUntilClosed()), .serverShuttingDown)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
    }

    func testTheSessionEnd_ReachesTheBroker_WhenTheClientVanishes() throws {
        let raw = try RawMQTT(port: server.port)
        XCTAssertEqual(try raw.connect().reasonCode, .success)
        let before = server.broker.sessionEnds.count
        let closedBefore = server.broker.closedCount
        try raw.send(MQTTPacket.disconnect(DisconnectPacket()).encoded())
        XCTAssertEqual(try raw.packetsUntilClosed(), [])
        let deadline = Date().addingTimeInterval(5)
        while server.broker.closedCount == closedBefore, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(server.broker.sessionEnds.count, before + 1)
        XCTAssertNil(server.broker.sessionEnds.last?.will)
    }
}
