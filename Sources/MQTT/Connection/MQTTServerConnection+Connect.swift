extension MQTTServerConnection {
    /// Before CONNECT: the first packet must be a CONNECT [MQTT-3.1.0-1]; it is validated (§3.1.4 step 2)
    /// and any failure answered with a CONNACK carrying the Reason Code before closing.
    mutating func readConnect() {
        guard let firstByte = splitter.nextFirstByte else { return }
        // MQTT 5.0 §3.1.0 [MQTT-3.1.0-1]: another packet first is not MQTT spoken to us; close without
        // a CONNACK, which would answer a CONNECT that never came.
        guard firstByte >> 4 == PacketType.connect.rawValue else {
            close(.protocolError)
            return
        }
        let packet: ConnectPacket
        do {
            guard let frame = try splitter.next() else { return }
            guard case .connect(let connect) = try MQTTPacket.decode(frame) else { return }
            packet = connect
        } catch .unsupportedProtocolVersion(let name, let level) {
            // MQTT 5.0 §3.1.2.2 [MQTT-3.1.2-2]: CONNACK 0x84 then close; an MQTT 3.x client (levels 3
            // and 4) gets the refusal in the CONNACK format it can read.
            if level == 3 || level == 4 || name == "MQIsdp" {
                actions.append(.sendBytes(ConnAckPacket.mqtt311UnacceptableProtocolVersion))
                close(.unsupportedProtocolVersion)
            } else {
                refuseConnect(.unsupportedProtocolVersion, nil)
            }
            return
        } catch {
            refuseConnect(error.reasonCode, error.description)
            return
        }
        accept(packet)
    }

    private mutating func accept(_ packet: ConnectPacket) {
        let properties = packet.properties
        // MQTT 5.0 §4.12 [MQTT-4.12.0-1]: no enhanced authentication is offered.
        if let method = properties.authenticationMethod {
            refuseConnect(.badAuthenticationMethod, "authentication method \(method) is not supported")
            return
        }
        var will: WillMessage?
        if let packetWill = packet.will {
            switch makeWill(packetWill) {
            case .success(let made): will = made
            case .failure(let refusal):
                refuseConnect(refusal.code, refusal.reason)
                return
            }
        }
        clientIdentifier = packet.clientIdentifier
        clientReceiveMaximum = Int(properties.receiveMaximum ?? UInt16.max)
        clientMaximumPacketSize = properties.maximumPacketSize.map { Int($0) } ?? Int.max
        requestProblemInformation = properties.requestProblemInformation ?? true
        // MQTT 5.0 §3.1.2.11.2: absent means 0; §3.2.2.3.2: a lower value is announced in CONNACK.
        let asked = properties.sessionExpiryInterval ?? 0
        sessionExpiryInterval = min(asked, configuration.maximumSessionExpiryInterval)
        connectSessionExpiryWasZero = asked == 0
        if sessionExpiryInterval != asked { sessionExpiryAnnounced = sessionExpiryInterval }
        // MQTT 5.0 §3.2.2.3.14: the Server may impose its Keep Alive; the client must use it [MQTT-3.2.2-21].
        var keepAlive = packet.keepAlive
        let maximum = configuration.maximumKeepAlive
        if maximum > 0, keepAlive == 0 || keepAlive > maximum {
            keepAlive = maximum
            serverKeepAlive = maximum
        }
        let request = ConnectRequest(
            clientIdentifier: packet.clientIdentifier, userName: packet.userName, password: packet.password,
            cleanStart: packet.cleanStart, sessionExpiryInterval: sessionExpiryInterval, keepAlive: keepAlive,
            will: will, userProperties: properties.userProperties)
        self.request = request
        phase = .authenticating
        actions.append(.authenticate(request))
        actions.append(.pauseReading)
    }

    private struct WillRefusal: Error {
        var code: ReasonCode
        var reason: String
    }

    private func makeWill(_ will: ConnectPacket.Will) -> Result<WillMessage, WillRefusal> {
        // MQTT 5.0 §3.2.2.3.4 [MQTT-3.2.2-12]: a Will QoS above our Maximum QoS (1) is refused with 0x9B.
        if will.qos == .exactlyOnce { return .failure(WillRefusal(code: .qosNotSupported, reason: "Will QoS 2")) }
        let topic: TopicName
        let properties: MessageProperties
        do {
            topic = try TopicName(will.topic)
            properties = try MessageProperties(from: will.properties)
        } catch {
            return .failure(WillRefusal(code: .topicNameInvalid, reason: "Will Topic or Response Topic: \(error)"))
        }
        // MQTT 5.0 §3.1.3.2.3: the Server MAY check a UTF-8 Will payload, refusing with 0x99.
        if will.properties.payloadFormatIndicator == .utf8, !UTF8Validation.isValid(will.payload, allowNull: true) {
            return .failure(WillRefusal(code: .payloadFormatInvalid, reason: "Will Payload is not UTF-8"))
        }
        let message = ApplicationMessage(topic: topic, payload: will.payload, qos: will.qos, retain: will.retain,
                                         properties: properties)
        return .success(WillMessage(message: message, delayInterval: will.properties.willDelayInterval ?? 0))
    }

    /// The service's answer to `.authenticate` (MQTT 5.0 §3.1.4 step 3, §3.2).
    mutating func authenticated(_ result: AuthenticationResult) {
        guard phase == .authenticating, let request else { return }
        switch result {
        case let .refused(code, reason):
            // MQTT 5.0 §3.2.2.2 [MQTT-3.2.2-8]: a Connect Reason Code, and a failure one.
            refuseConnect(ReasonCode.connack.contains(code) && code.isFailure ? code : .unspecifiedError, reason)
        case .accepted(let grant):
            if request.clientIdentifier.isEmpty {
                // MQTT 5.0 §3.1.3.1 [MQTT-3.1.3-6]: an empty ClientID needs one assigned.
                guard let assigned = grant.assignedClientIdentifier, !assigned.isEmpty else {
                    refuseConnect(.clientIdentifierNotValid, "an empty Client Identifier is not accepted")
                    return
                }
                clientIdentifier = assigned
            }
            connected(grant, request: request)
        }
    }

    private mutating func connected(_ grant: SessionGrant, request: ConnectRequest) {
        var properties = Properties()
        // MQTT 5.0 §3.2.2.3: what this Server supports, where it differs from the defaults.
        if configuration.receiveMaximum != UInt16.max { properties.receiveMaximum = configuration.receiveMaximum }
        properties.maximumQoS = .atLeastOnce
        properties.maximumPacketSize = UInt32(clamping: configuration.maximumPacketSize)
        if configuration.topicAliasMaximum > 0 { properties.topicAliasMaximum = configuration.topicAliasMaximum }
        properties.subscriptionIdentifierAvailable = false
        properties.sharedSubscriptionAvailable = false
        properties.sessionExpiryInterval = sessionExpiryAnnounced
        properties.serverKeepAlive = serverKeepAlive
        // MQTT 5.0 §3.2.2.3.7 [MQTT-3.1.3-7].
        if request.clientIdentifier.isEmpty { properties.assignedClientIdentifier = clientIdentifier }
        // MQTT 5.0 §3.2.2.1.1 [MQTT-3.2.2-2]: Session Present is 0 whenever Clean Start is 1.
        let sessionPresent = grant.sessionPresent && !request.cleanStart
        send(.connack(ConnAckPacket(sessionPresent: sessionPresent, reasonCode: .success, properties: properties)))
        phase = .connected
        window = OutboundWindow(receiveMaximum: clientReceiveMaximum, queueLimit: configuration.maximumQueuedMessages)
        aliases = InboundTopicAliases(maximum: configuration.topicAliasMaximum)
        keepAliveNanoseconds = UInt64(request.keepAlive) * 1_500_000_000
        packetReceived()
        actions.append(.resumeReading)
        if sessionPresent { resend(grant.inflight) }
        // Packets the client sent after CONNECT wait for this moment (§3.1.4 [MQTT-3.1.4-6]).
        processPackets()
    }
}
