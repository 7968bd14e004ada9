import Foundation
import HTTP
import MQTT

/// Raw bytes to the listener and its packets back, so that tests control exactly what is sent.
final class RawMQTT {
    private var stream: ClientByteStream?
    private var splitter = FrameSplitter(maximumPacketSize: 1 << 22)

    init(port: Int) throws {
        stream = try ClientByteStream.connect(host: "127.0.0.1", port: port, tls: false, timeout: 5)
    }

    func send(_ bytes: [UInt8]) throws {
        try stream?.write(bytes, timeout: 5)
    }

    func send(_ packet: MQTTPacket) throws {
        try send(packet.encoded())
    }

    /// CONNECT as `user` (clean start) and the CONNACK.
    @discardableResult
    func connect(user: String = "ok", keepAlive: UInt16 = 60, properties: Properties = Properties()) throws -> ConnAckPacket {
        try send(.connect(ConnectPacket(clientIdentifier: "raw", keepAlive: keepAlive, properties: properties, userName: user,
                                        password: Array("secret".utf8))))
        guard case .connack(let connack)? = try next() else { throw Unexpected.packet }
        return connack
    }

    enum Unexpected: Error { case packet }

    /// The next packet, or nil when the server closed the connection first.
    func next(timeout: Double = 5) throws -> MQTTPacket? {
        while true {
            if let frame = try splitter.next() { return try MQTTPacket.decode(frame) }
            guard let stream else { return nil }
            let bytes = try stream.read(timeout: timeout)
            if bytes.isEmpty {
                self.stream = nil
                return nil
            }
            splitter.append(bytes)
        }
    }

    /// Every packet until the server closes; throws on timeout.
    func packetsUntilClosed(timeout: Double = 5) throws -> [MQTTPacket] {
        var packets: [MQTTPacket] = []
        while let packet = try next(timeout: timeout) { packets.append(packet) }
        return packets
    }
}
