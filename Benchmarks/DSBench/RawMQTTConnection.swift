import MQTT

/// An MQTT connection as the abuse bench's attacker holds it: packets written whole from a chosen
/// local address (`LoopbackSocket`), whatever the server answered meanwhile, and its packets read
/// back. Blocking, with the socket's timeout; one thread at a time.
final class RawMQTTConnection {
    let socket: LoopbackSocket
    private var splitter = FrameSplitter(maximumPacketSize: 1 << 24)
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    private init(socket: LoopbackSocket) { self.socket = socket }

    deinit { socket.close() }

    /// Connects from `source` and sends CONNECT; the connection and its CONNACK's Reason Code (nil:
    /// closed, or no CONNACK within the timeout).
    static func connect(port: Int, from source: String, _ connect: ConnectPacket,
                        timeout: Int = 15) -> (RawMQTTConnection, ReasonCode?)? {
        guard let connection = open(port: port, from: source, timeout: timeout) else { return nil }
        guard connection.send(.connect(connect)) else { return (connection, nil) }
        return (connection, connection.connack())
    }

    /// A TCP connection from `source`, nothing sent yet.
    static func open(port: Int, from source: String, timeout: Int = 15) -> RawMQTTConnection? {
        (try? LoopbackSocket.connect(port: port, from: source, timeout: timeout)).map(RawMQTTConnection.init)
    }

    /// The CONNACK's Reason Code, packets before it skipped; nil when the connection ended first.
    func connack() -> ReasonCode? {
        while let packet = next() {
            if case .connack(let connack) = packet { return connack.reasonCode }
        }
        return nil
    }

    /// Writes the packet's bytes; false when the connection failed (or the timeout passed).
    @discardableResult
    func send(_ packet: MQTTPacket) -> Bool { send(bytes: packet.encoded()) }

    @discardableResult
    func send(bytes: [UInt8]) -> Bool { (try? socket.sendAll(bytes, retryingWhenFull: false)) != nil }

    /// The next packet; nil when the server closed or the socket's timeout passed first.
    func next() -> MQTTPacket? {
        while true {
            do {
                if let frame = try splitter.next() { return try MQTTPacket.decode(frame) }
            } catch {
                return nil
            }
            guard case .bytes(let count)? = try? socket.read(into: &scratch) else { return nil }
            splitter.append(scratch.prefix(count))
        }
    }
}
