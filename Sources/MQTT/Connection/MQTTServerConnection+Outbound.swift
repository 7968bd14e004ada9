extension MQTTServerConnection {
    /// A message for the client: QoS 0 goes out at once; QoS 1 goes out while the client's Receive
    /// Maximum allows (MQTT 5.0 §4.9), else waits in order behind the others.
    mutating func deliver(_ outbound: OutboundMessage) {
        guard phase == .connected else {
            actions.append(.discarded(messageID: outbound.id, reason: .notConnected))
            return
        }
        var outbound = outbound
        // MQTT 5.0 §3.2.2.3.4: this Server never sends above QoS 1.
        outbound.message.qos = min(outbound.message.qos, .atLeastOnce)
        if outbound.message.qos == .atMostOnce {
            if !send(.publish(publishPacket(outbound.message, packetIdentifier: nil, dup: false))) {
                actions.append(.discarded(messageID: outbound.id, reason: .packetTooLarge))
            }
            return
        }
        if window.canSendImmediately, let identifier = window.allocateIdentifier() {
            let entry = OutboundWindow.Entry(outbound: outbound, packetIdentifier: identifier, dup: false,
                                             sequence: window.sequenceNumber(), queuedAt: now)
            transmit(entry, identifier: identifier)
            return
        }
        if !window.enqueue(outbound, at: now) { actions.append(.discarded(messageID: outbound.id, reason: .queueFull)) }
    }

    /// MQTT 5.0 §4.4 [MQTT-4.4.0-1]: on resuming a Session, unacknowledged PUBLISH packets are resent with
    /// their original Packet Identifiers and DUP set, within the new Receive Maximum.
    mutating func resend(_ inflight: [InflightMessage]) {
        for message in inflight {
            _ = window.enqueue(message.outbound, at: now, packetIdentifier: message.packetIdentifier, dup: true, force: true)
        }
        sendQueued()
    }

    /// The client's PUBACK for one of ours: the identifier is free again and the quota grows back
    /// (MQTT 5.0 §4.9); an unknown identifier is ignored.
    mutating func outboundAcknowledged(_ ack: PubAckPacket) {
        guard let entry = window.acknowledge(ack.packetIdentifier) else { return }
        actions.append(.acknowledged(messageID: entry.outbound.id, packetIdentifier: ack.packetIdentifier,
                                     reasonCode: ack.reasonCode))
        sendQueued()
    }

    private mutating func sendQueued() {
        while let (entry, identifier) = window.takeNext() { transmit(entry, identifier: identifier) }
    }

    private mutating func transmit(_ entry: OutboundWindow.Entry, identifier: UInt16) {
        var message = entry.outbound.message
        // MQTT 5.0 §3.3.2.3.3: a message that waited here past its Message Expiry Interval is deleted
        // [MQTT-3.3.2-5]; one that did not goes out with the time it waited taken off [MQTT-3.3.2-6]. A
        // resend (DUP) has started its delivery already and goes out as it was.
        if !entry.dup, let expiry = message.properties.messageExpiryInterval {
            let waited = (now &- entry.queuedAt) / 1_000_000_000
            guard waited < UInt64(expiry) else {
                actions.append(.discarded(messageID: entry.outbound.id, reason: .expired))
                return
            }
            message.properties.messageExpiryInterval = expiry - UInt32(waited)
        }
        let packet = publishPacket(message, packetIdentifier: identifier, dup: entry.dup)
        // MQTT 5.0 §3.1.2.11.4 [MQTT-3.1.2-25]: too large for the client: discarded, as if delivered.
        guard send(.publish(packet)) else {
            actions.append(.discarded(messageID: entry.outbound.id, reason: .packetTooLarge))
            return
        }
        window.markInflight(entry, identifier: identifier)
        actions.append(.delivered(messageID: entry.outbound.id, packetIdentifier: identifier))
    }

    func publishPacket(_ message: ApplicationMessage, packetIdentifier: UInt16?, dup: Bool) -> PublishPacket {
        PublishPacket(topicName: message.topic.value, payload: message.payload, qos: message.qos,
                      packetIdentifier: packetIdentifier, retain: message.retain, dup: dup,
                      properties: message.properties.packetProperties)
    }
}
