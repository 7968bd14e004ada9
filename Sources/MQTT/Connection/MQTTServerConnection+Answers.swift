extension MQTTServerConnection {
    /// The service's answer to a QoS 1 `.publish`: PUBACK with it (MQTT 5.0 §3.4, §4.3.2).
    mutating func answerPublish(_ identifier: UInt16, reasonCode: ReasonCode, reasonString: String?) {
        guard phase == .connected, inboundAwaitingAnswer.remove(identifier) != nil else { return }
        // MQTT 5.0 §3.4.2.1 [MQTT-3.4.2-1]: one of the PUBACK Reason Codes.
        let code = ReasonCode.puback.contains(reasonCode) ? reasonCode : .unspecifiedError
        send(.puback(PubAckPacket(packetIdentifier: identifier, reasonCode: code, properties: reasonProperties(reasonString))))
    }

    /// The service's Reason Codes for a `.subscribe`: SUBACK in the SUBSCRIBE's order [MQTT-3.9.3-1].
    mutating func answerSubscribe(_ identifier: UInt16, _ codes: [ReasonCode]) {
        guard phase == .connected, let known = pendingSubscribes.removeValue(forKey: identifier) else { return }
        // MQTT 5.0 §3.2.2.3.4: we grant at most QoS 1.
        let granted = codes.map { $0 == .grantedQoS2 ? .grantedQoS1 : $0 }
        send(.suback(SubAckPacket(packetIdentifier: identifier, reasonCodes: Self.merge(known, granted, allowed: ReasonCode.suback))))
    }

    /// The service's Reason Codes for an `.unsubscribe`: UNSUBACK in order [MQTT-3.11.3-1].
    mutating func answerUnsubscribe(_ identifier: UInt16, _ codes: [ReasonCode]) {
        guard phase == .connected, let known = pendingUnsubscribes.removeValue(forKey: identifier) else { return }
        send(.unsuback(UnsubAckPacket(packetIdentifier: identifier, reasonCodes: Self.merge(known, codes, allowed: ReasonCode.unsuback))))
    }

    /// One code per filter: those already known (invalid filters), the service's in order for the rest;
    /// a missing code, or one outside the packet's set [MQTT-3.9.3-2], becomes 0x80.
    static func merge(_ known: [ReasonCode?], _ answers: [ReasonCode], allowed: Set<ReasonCode>) -> [ReasonCode] {
        var answers = answers[...]
        return known.map { known in
            if let known { return known }
            guard let code = answers.popFirst(), allowed.contains(code) else { return .unspecifiedError }
            return code
        }
    }
}
