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
        guard phase == .connected, let template = pendingSubscribes.removeValue(forKey: identifier) else { return }
        var answers = codes[...]
        let merged = template.map { known -> ReasonCode in
            if let known { return known }
            guard let code = answers.popFirst(), ReasonCode.suback.contains(code) else { return .unspecifiedError }
            // MQTT 5.0 §3.2.2.3.4: we grant at most QoS 1.
            return code == .grantedQoS2 ? .grantedQoS1 : code
        }
        send(.suback(SubAckPacket(packetIdentifier: identifier, reasonCodes: merged)))
    }

    /// The service's Reason Codes for an `.unsubscribe`: UNSUBACK in order [MQTT-3.11.3-1].
    mutating func answerUnsubscribe(_ identifier: UInt16, _ codes: [ReasonCode]) {
        guard phase == .connected, let template = pendingUnsubscribes.removeValue(forKey: identifier) else { return }
        var answers = codes[...]
        let merged = template.map { known -> ReasonCode in
            if let known { return known }
            guard let code = answers.popFirst(), ReasonCode.unsuback.contains(code) else { return .unspecifiedError }
            return code
        }
        send(.unsuback(UnsubAckPacket(packetIdentifier: identifier, reasonCodes: merged)))
    }
}
