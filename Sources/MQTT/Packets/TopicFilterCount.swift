/// The Topic Filters of a SUBSCRIBE (MQTT 5.0 §3.8.3) or UNSUBSCRIBE (§3.10.3) counted from their
/// lengths alone, before any is decoded: a packet of too many is refused at the cost of a walk over
/// its bytes, not of a string and a validation per filter (a 1 MiB packet holds about 24,000).
enum TopicFilterCount {
    /// The Packet Identifier and the number of filters; nil when the body is not well-formed (its
    /// decoding then names the error). `optionsBytes`: what follows each filter (1 in SUBSCRIBE).
    static func count(body: [UInt8], optionsBytes: Int) -> (identifier: UInt16, count: Int)? {
        var reader = MQTTReader(body)
        do throws(MQTTError) {
            let identifier = try reader.readUInt16()
            try reader.skip(try reader.readVariableByteInteger())
            var count = 0
            while !reader.isAtEnd {
                try reader.skip(Int(try reader.readUInt16()) + optionsBytes)
                count += 1
            }
            return identifier == 0 ? nil : (identifier, count)
        } catch {
            return nil
        }
    }
}
