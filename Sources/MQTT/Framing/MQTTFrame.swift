/// One whole packet as it came off the wire: the fixed header's first byte and the Remaining Length
/// bytes after it (MQTT 5.0 §2.1.1). `MQTTPacket.decode` turns it into a packet.
public struct MQTTFrame: Equatable, Sendable {
    public var firstByte: UInt8
    public var body: [UInt8]

    public init(firstByte: UInt8, body: [UInt8]) {
        self.firstByte = firstByte
        self.body = body
    }

    public var flags: UInt8 { firstByte & 0x0F }

    /// Fixed header plus Remaining Length: the packet size that Maximum Packet Size bounds (§2.1.4).
    public var packetSize: Int { 1 + VariableByteInteger.size(of: body.count) + body.count }
}
