/// The Topic Filters of a SUBSCRIBE (MQTT 5.0 §3.8.3) or UNSUBSCRIBE (§3.10.3) counted from their
/// lengths alone, before any is decoded: a packet of too many is refused at the cost of a walk over
/// its length fields, not of a string and a validation per filter (a 1 MiB packet holds about 24,000).
enum TopicFilterCount {
    /// The Packet Identifier and the number of filters; nil when the body is not well-formed (its
    /// decoding then names the error). `optionsBytes`: what follows each filter (1 in SUBSCRIBE).
    static func count(body: [UInt8], optionsBytes: Int) -> (identifier: UInt16, count: Int)? {
        var reader = MQTTReader(body)
        guard let identifier = try? reader.readUInt16(), identifier != 0,
              let propertyLength = try? reader.readVariableByteInteger(), (try? reader.skip(propertyLength)) != nil
        else { return nil }
        // §1.5.4: each filter is a Two Byte Integer length and that many bytes. A plain walk over the
        // length fields: this runs on the connection's I/O thread for every large SUBSCRIBE.
        var position = reader.position, count = 0
        while position < body.count {
            guard position + 1 < body.count else { return nil }
            position += 2 + (Int(body[position]) << 8 | Int(body[position + 1])) + optionsBytes
            count += 1
        }
        return position == body.count ? (identifier, count) : nil
    }
}
