/// Splits a byte stream into whole packets (MQTT 5.0 §2.1.1): bytes in, frames out. A packet's size is
/// checked against `maximumPacketSize` as soon as its Remaining Length is complete, before any of its
/// body is kept, so a hostile length costs nothing; the packet type and its reserved flags are checked
/// from the first byte.
public struct FrameSplitter: Sendable {
    /// The largest packet accepted, fixed header included (the Maximum Packet Size we announce).
    public let maximumPacketSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(maximumPacketSize: Int) {
        precondition(maximumPacketSize >= 2, "a packet is at least two bytes")
        self.maximumPacketSize = min(maximumPacketSize, 1 + 4 + VariableByteInteger.maximum)
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedCount: Int { buffer.count - start }

    /// The first byte of the next packet, once it has arrived.
    public var nextFirstByte: UInt8? { start < buffer.count ? buffer[start] : nil }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        // Reclaim what earlier frames used once it is most of the buffer.
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive. Throws on a reserved type or flags, a
    /// malformed Remaining Length (0x81), or a packet larger than `maximumPacketSize` (0x95); after a
    /// throw the stream cannot be resynchronised and the connection must close.
    public mutating func next() throws(MQTTError) -> MQTTFrame? {
        guard start < buffer.count else { return nil }
        let firstByte = buffer[start]
        _ = try PacketType(firstByte: firstByte)
        // MQTT 5.0 §2.1.4: the Remaining Length is a Variable Byte Integer of at most four bytes.
        guard case let .value(remaining, lengthBytes) = try VariableByteInteger.parse(buffer, at: start + 1) else {
            return nil
        }
        let size = 1 + lengthBytes + remaining
        // MQTT 5.0 §3.2.2.3.6: a packet larger than our Maximum Packet Size is refused with 0x95.
        guard size <= maximumPacketSize else { throw .packetTooLarge(size: size, maximum: maximumPacketSize) }
        guard buffer.count - start >= size else { return nil }
        let bodyStart = start + 1 + lengthBytes
        let frame = MQTTFrame(firstByte: firstByte, body: Array(buffer[bodyStart..<(start + size)]))
        start += size
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 65_536)
            start = 0
        }
        return frame
    }
}
