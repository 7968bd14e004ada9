/// UNSUBSCRIBE, Topic Filters to remove (MQTT 5.0 §3.10).
public struct UnsubscribePacket: Equatable, Sendable {
    public var packetIdentifier: UInt16
    public var properties: Properties
    /// At least one [MQTT-3.10.3-2].
    public var topicFilters: [String]

    public init(packetIdentifier: UInt16, topicFilters: [String], properties: Properties = Properties()) {
        self.packetIdentifier = packetIdentifier
        self.topicFilters = topicFilters
        self.properties = properties
    }

    func encodeBody(into w: inout MQTTWriter) {
        w.writeUInt16(packetIdentifier)
        properties.encode(into: &w, context: .unsubscribe)
        for filter in topicFilters { w.writeString(filter) }
    }

    static func decode(body: [UInt8]) throws(MQTTError) -> UnsubscribePacket {
        var r = MQTTReader(body)
        let identifier = try r.readUInt16("Packet Identifier")
        guard identifier != 0 else { throw .protocolError("UNSUBSCRIBE Packet Identifier 0") }
        let properties = try Properties.decode(from: &r, context: .unsubscribe)
        var filters: [String] = []
        while !r.isAtEnd { filters.append(try r.readString("Topic Filter")) }
        // MQTT 5.0 §3.10.3 [MQTT-3.10.3-2]: an UNSUBSCRIBE with no Payload is a Protocol Error.
        guard !filters.isEmpty else { throw .protocolError("UNSUBSCRIBE without a Topic Filter") }
        return UnsubscribePacket(packetIdentifier: identifier, topicFilters: filters, properties: properties)
    }
}
