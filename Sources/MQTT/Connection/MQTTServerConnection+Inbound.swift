extension MQTTServerConnection {
    /// Splits, decodes and handles every whole packet buffered, while connected. A Malformed Packet or
    /// Protocol Error ends the connection with DISCONNECT and its Reason Code [MQTT-4.13.1-1].
    mutating func processPackets() {
        while phase == .connected {
            let packet: MQTTPacket
            do {
                guard let frame = try splitter.next() else { return }
                // MQTT 5.0 §3.1.0 [MQTT-3.1.0-2]: a second CONNECT is a Protocol Error, whatever it holds.
                if frame.firstByte >> 4 == PacketType.connect.rawValue {
                    disconnect(.protocolError, "second CONNECT")
                    return
                }
                if answeredOversizedFilterList(frame) { continue }
                packet = try MQTTPacket.decode(frame)
            } catch {
                disconnect(error.reasonCode, error.description)
                return
            }
            packetReceived()
            handle(packet)
        }
    }

    /// A SUBSCRIBE or UNSUBSCRIBE of more Topic Filters than `maximumTopicFilters`, counted before any
    /// is decoded, gets every filter refused: 0x97 Quota exceeded in SUBACK (§3.9.3), 0x83 in UNSUBACK
    /// (§3.11.3 has no Quota exceeded). True when `frame` was such a packet and is answered.
    private mutating func answeredOversizedFilterList(_ frame: MQTTFrame) -> Bool {
        let type = frame.firstByte >> 4
        let subscribe = type == PacketType.subscribe.rawValue
        guard subscribe || type == PacketType.unsubscribe.rawValue,
              let (identifier, count) = TopicFilterCount.count(body: frame.body, optionsBytes: subscribe ? 1 : 0),
              count > configuration.maximumTopicFilters else { return false }
        if inUse(identifier) {
            disconnect(.protocolError, "Packet Identifier \(identifier) is in use")
            return true
        }
        packetReceived()
        let reason = reasonProperties("more than \(configuration.maximumTopicFilters) Topic Filters in one packet")
        if subscribe {
            send(.suback(SubAckPacket(packetIdentifier: identifier, reasonCodes: Array(repeating: .quotaExceeded, count: count),
                                      properties: reason)))
        } else {
            send(.unsuback(UnsubAckPacket(packetIdentifier: identifier,
                                          reasonCodes: Array(repeating: .implementationSpecificError, count: count), properties: reason)))
        }
        return true
    }

    /// MQTT 5.0 §3.1.2.10: any Control Packet restarts the 1.5 × Keep Alive interval.
    mutating func packetReceived() {
        deadline = keepAliveNanoseconds == 0 ? nil : now &+ keepAliveNanoseconds
    }

    private mutating func handle(_ packet: MQTTPacket) {
        switch packet {
        case .publish(let publish): received(publish)
        case .puback(let ack): outboundAcknowledged(ack)
        case .subscribe(let subscribe): received(subscribe)
        case .unsubscribe(let unsubscribe): received(unsubscribe)
        // MQTT 5.0 §3.12.4 [MQTT-3.12.4-1].
        case .pingreq: send(.pingresp)
        case .disconnect(let disconnect): received(disconnect)
        // MQTT 5.0 §4.12 [MQTT-4.12.0-7]: no Authentication Method in CONNECT, so no AUTH.
        case .auth: disconnect(.protocolError, "AUTH without an Authentication Method")
        // We send no QoS 2 PUBLISH and no PUBREC, so none of the QoS 2 replies can be due (§4.3.3).
        case .pubrec, .pubrel, .pubcomp: disconnect(.protocolError, "\(packet.type) without a QoS 2 exchange")
        // Packets only a Server sends.
        case .connect, .connack, .suback, .unsuback, .pingresp: disconnect(.protocolError, "\(packet.type) from a client")
        }
    }

    /// The Packet Identifiers of the client's unacknowledged PUBLISH, SUBSCRIBE and UNSUBSCRIBE: one set
    /// (§2.2.1); reusing one still in use is a Protocol Error [MQTT-2.2.1-3].
    private func inUse(_ identifier: UInt16) -> Bool {
        inboundAwaitingAnswer.contains(identifier) || pendingSubscribes[identifier] != nil
            || pendingUnsubscribes[identifier] != nil
    }

    private mutating func received(_ publish: PublishPacket) {
        // MQTT 5.0 §3.2.2.3.4: above the Maximum QoS (1) we announced: DISCONNECT 0x9B.
        if publish.qos == .exactlyOnce { return disconnect(.qosNotSupported, "QoS 2 is not supported") }
        // MQTT 5.0 §3.3.4 [MQTT-3.3.4-6]: no Subscription Identifier from a client.
        if !publish.properties.subscriptionIdentifiers.isEmpty {
            return disconnect(.protocolError, "PUBLISH from a client with a Subscription Identifier")
        }
        let topic: TopicName
        do {
            topic = try aliases.resolve(topicName: publish.topicName, alias: publish.properties.topicAlias)
        } catch {
            switch error {
            case .invalidAlias(let alias):
                return disconnect(.topicAliasInvalid, "Topic Alias \(alias) is 0 or above \(aliases.maximum)")
            case .unknownAlias(let alias):
                return disconnect(.protocolError, "Topic Alias \(alias) has no Topic Name")
            case .missingTopic:
                return disconnect(.protocolError, "PUBLISH without Topic Name or Topic Alias")
            case .invalidTopic(let topicError):
                // MQTT 5.0 §3.3.2.1 [MQTT-3.3.2-2]: no wildcards in a Topic Name.
                return disconnect(.topicNameInvalid, "Topic Name: \(topicError)")
            }
        }
        let properties: MessageProperties
        do {
            properties = try MessageProperties(from: publish.properties)
        } catch {
            // MQTT 5.0 §3.3.2.3.5 [MQTT-3.3.2-14]: a Response Topic is a Topic Name without wildcards.
            return disconnect(.protocolError, "Response Topic: \(error)")
        }
        if let identifier = publish.packetIdentifier {
            // MQTT 5.0 §3.3.4: more unacknowledged QoS 1 PUBLISH than our Receive Maximum: 0x93.
            if inboundAwaitingAnswer.count >= Int(configuration.receiveMaximum) {
                return disconnect(.receiveMaximumExceeded, "more than \(configuration.receiveMaximum) unacknowledged PUBLISH")
            }
            if inUse(identifier) { return disconnect(.protocolError, "Packet Identifier \(identifier) is in use") }
        }
        // MQTT 5.0 §3.3.2.3.2: the receiver MAY check a UTF-8 payload and answer 0x99.
        if properties.payloadFormat == .utf8, !UTF8Validation.isValid(publish.payload, allowNull: true) {
            guard let identifier = publish.packetIdentifier else {
                return disconnect(.payloadFormatInvalid, "payload is not UTF-8")
            }
            send(.puback(PubAckPacket(packetIdentifier: identifier, reasonCode: .payloadFormatInvalid,
                                      properties: reasonProperties("payload is not UTF-8"))))
            return
        }
        if let identifier = publish.packetIdentifier { inboundAwaitingAnswer.insert(identifier) }
        let message = ApplicationMessage(topic: topic, payload: publish.payload, qos: publish.qos, retain: publish.retain,
                                         properties: properties)
        actions.append(.publish(InboundPublish(message: message, packetIdentifier: publish.packetIdentifier, dup: publish.dup)))
    }

    private mutating func received(_ subscribe: SubscribePacket) {
        // MQTT 5.0 §3.2.2.3.12: Subscription Identifiers are not available here: DISCONNECT 0xA1.
        if !subscribe.properties.subscriptionIdentifiers.isEmpty {
            return disconnect(.subscriptionIdentifiersNotSupported, "Subscription Identifiers are not supported")
        }
        let identifier = subscribe.packetIdentifier
        if inUse(identifier) { return disconnect(.protocolError, "Packet Identifier \(identifier) is in use") }
        let (codes, filters) = Self.parseFilters(subscribe.subscriptions.map(\.topicFilter))
        // MQTT 5.0 §3.2.2.3.13: Shared Subscriptions are announced unavailable: DISCONNECT 0x9E.
        if filters.contains(where: { $0.filter.isShared }) {
            return disconnect(.sharedSubscriptionsNotSupported, "Shared Subscriptions are not supported")
        }
        if filters.isEmpty {
            send(.suback(SubAckPacket(packetIdentifier: identifier, reasonCodes: codes.map { $0 ?? .unspecifiedError })))
            return
        }
        let requests = filters.map { SubscriptionRequest(topicFilter: $0.filter, options: subscribe.subscriptions[$0.index].options) }
        pendingSubscribes[identifier] = codes
        actions.append(.subscribe(packetIdentifier: identifier, requests: requests))
    }

    private mutating func received(_ unsubscribe: UnsubscribePacket) {
        let identifier = unsubscribe.packetIdentifier
        if inUse(identifier) { return disconnect(.protocolError, "Packet Identifier \(identifier) is in use") }
        let (codes, filters) = Self.parseFilters(unsubscribe.topicFilters)
        if filters.isEmpty {
            send(.unsuback(UnsubAckPacket(packetIdentifier: identifier, reasonCodes: codes.map { $0 ?? .unspecifiedError })))
            return
        }
        pendingUnsubscribes[identifier] = codes
        actions.append(.unsubscribe(packetIdentifier: identifier, topicFilters: filters.map(\.filter)))
    }

    /// Checks each filter of a SUBSCRIBE or UNSUBSCRIBE (§4.7): an invalid one is answered 0x8F on its
    /// own (§3.9.3, §3.11.3); the valid ones, with their places, go to the service.
    private static func parseFilters(_ values: [String]) -> (codes: [ReasonCode?], filters: [(index: Int, filter: TopicFilter)]) {
        var codes: [ReasonCode?] = []
        var filters: [(index: Int, filter: TopicFilter)] = []
        for (index, value) in values.enumerated() {
            if let filter = try? TopicFilter(value) {
                codes.append(nil)
                filters.append((index, filter))
            } else {
                codes.append(.topicFilterInvalid)
            }
        }
        return (codes, filters)
    }

    private mutating func received(_ disconnect: DisconnectPacket) {
        if let interval = disconnect.properties.sessionExpiryInterval {
            // MQTT 5.0 §3.14.2.2.2: from 0 in CONNECT to non-zero is a Protocol Error, and the DISCONNECT
            // is not treated as valid (so the Will stays).
            if connectSessionExpiryWasZero, interval != 0 {
                return self.disconnect(.protocolError, "Session Expiry Interval set on DISCONNECT after 0 on CONNECT")
            }
            sessionExpiryInterval = min(interval, configuration.maximumSessionExpiryInterval)
        }
        // MQTT 5.0 §3.14.4 [MQTT-3.14.4-3]: 0x00 discards the Will; any other code (0x04 asks for it) keeps it.
        endSession(keepWill: disconnect.reasonCode != .normalDisconnection)
        close(disconnect.reasonCode)
    }
}
