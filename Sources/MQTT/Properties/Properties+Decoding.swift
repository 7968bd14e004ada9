extension Properties {
    /// Reads a Property Length and the properties it covers (MQTT 5.0 §2.2.2). An identifier unknown or
    /// not allowed in `context`, or a value of the wrong type, is a Malformed Packet (§2.2.2.2); a
    /// repeated property that must appear once, or a value outside its range, is a Protocol Error.
    public static func decode(from reader: inout MQTTReader, context: PropertyContext) throws(MQTTError) -> Properties {
        let length = try reader.readVariableByteInteger("\(context.rawValue) Property Length")
        return try reader.section(length, "\(context.rawValue) properties") { (r: inout MQTTReader) throws(MQTTError) in
            var properties = Properties()
            var seen = Set<PropertyIdentifier>()
            while !r.isAtEnd {
                let raw = try r.readVariableByteInteger("property identifier")
                guard raw <= 0xFF, let id = PropertyIdentifier(rawValue: UInt8(raw)) else {
                    throw .malformed("unknown property identifier 0x\(String(raw, radix: 16)) in \(context.rawValue)")
                }
                guard id.allowedIn.contains(context) else {
                    throw .malformed("property \(id) is not allowed in \(context.rawValue)")
                }
                if !seen.insert(id).inserted, !id.mayRepeat(in: context) {
                    throw .protocolError("property \(id) included more than once in \(context.rawValue)")
                }
                try properties.read(id, from: &r)
            }
            return properties
        }
    }

    private mutating func read(_ id: PropertyIdentifier, from r: inout MQTTReader) throws(MQTTError) {
        let what = "property \(id)"
        switch id {
        case .payloadFormatIndicator:
            // MQTT 5.0 §3.3.2.3.2: 0 or 1.
            let value = try r.readByte(what)
            guard let format = PayloadFormat(rawValue: value) else { throw .protocolError("Payload Format Indicator \(value)") }
            payloadFormatIndicator = format
        case .messageExpiryInterval: messageExpiryInterval = try r.readUInt32(what)
        case .contentType: contentType = try r.readString(what)
        case .responseTopic: responseTopic = try r.readString(what)
        case .correlationData: correlationData = try r.readBinary(what)
        case .subscriptionIdentifier:
            // MQTT 5.0 §3.8.2.1.2: 1 to 268,435,455; 0 is a Protocol Error.
            let value = try r.readVariableByteInteger(what)
            guard value != 0 else { throw .protocolError("Subscription Identifier 0") }
            subscriptionIdentifiers.append(value)
        case .sessionExpiryInterval: sessionExpiryInterval = try r.readUInt32(what)
        case .assignedClientIdentifier: assignedClientIdentifier = try r.readString(what)
        case .serverKeepAlive: serverKeepAlive = try r.readUInt16(what)
        case .authenticationMethod: authenticationMethod = try r.readString(what)
        case .authenticationData: authenticationData = try r.readBinary(what)
        // MQTT 5.0 §3.1.2.11.7: a value other than 0 or 1 is a Protocol Error.
        case .requestProblemInformation: requestProblemInformation = try Self.readFlag(id, from: &r)
        case .willDelayInterval: willDelayInterval = try r.readUInt32(what)
        // MQTT 5.0 §3.1.2.11.6: likewise.
        case .requestResponseInformation: requestResponseInformation = try Self.readFlag(id, from: &r)
        case .responseInformation: responseInformation = try r.readString(what)
        case .serverReference: serverReference = try r.readString(what)
        case .reasonString: reasonString = try r.readString(what)
        case .receiveMaximum:
            // MQTT 5.0 §3.1.2.11.3: "It is a Protocol Error ... for it to have the value 0".
            let value = try r.readUInt16(what)
            guard value != 0 else { throw .protocolError("Receive Maximum 0") }
            receiveMaximum = value
        case .topicAliasMaximum: topicAliasMaximum = try r.readUInt16(what)
        // Alias 0 is refused by the receiver with 0x94 Topic Alias invalid (§3.3.4), not here.
        case .topicAlias: topicAlias = try r.readUInt16(what)
        case .maximumQoS:
            // MQTT 5.0 §3.2.2.3.4: 0 or 1.
            let value = try r.readByte(what)
            guard value <= 1 else { throw .protocolError("Maximum QoS \(value)") }
            maximumQoS = QoS(rawValue: value)
        case .retainAvailable: retainAvailable = try Self.readFlag(id, from: &r)
        case .userProperty: userProperties.append(try r.readStringPair(what))
        case .maximumPacketSize:
            // MQTT 5.0 §3.1.2.11.4: zero is a Protocol Error.
            let value = try r.readUInt32(what)
            guard value != 0 else { throw .protocolError("Maximum Packet Size 0") }
            maximumPacketSize = value
        case .wildcardSubscriptionAvailable: wildcardSubscriptionAvailable = try Self.readFlag(id, from: &r)
        case .subscriptionIdentifierAvailable: subscriptionIdentifierAvailable = try Self.readFlag(id, from: &r)
        case .sharedSubscriptionAvailable: sharedSubscriptionAvailable = try Self.readFlag(id, from: &r)
        }
    }

    private static func readFlag(_ id: PropertyIdentifier, from r: inout MQTTReader) throws(MQTTError) -> Bool {
        let value = try r.readByte("property \(id)")
        guard value <= 1 else { throw .protocolError("\(id) must be 0 or 1, got \(value)") }
        return value == 1
    }
}
