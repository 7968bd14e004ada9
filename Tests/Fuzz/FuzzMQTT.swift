// libFuzzer entry point for the MQTT 5.0 core (scripts/fuzz.sh mqtt): the input as a byte stream
// through the frame splitter and packet decoder, then through the server state machine twice: from
// the first byte (so CONNECT itself is fuzzed), and after a valid CONNECT, with the service answering
// every request. Checks that every decoded packet round-trips, that every packet sent fits the
// client's limits and decodes, and that nothing happens after close. The listener's own parsing of
// Relay payloads is fuzzed too: the input as a CBOR array of byte strings (relay/k's KeyPackage
// bundles) and of text strings, each accepted array written back to the same bytes.
import Basics
import MQTT

private let maximumPacketSize = 4096

private func splitAndDecode(_ bytes: [UInt8]) {
    var splitter = FrameSplitter(maximumPacketSize: maximumPacketSize)
    splitter.append(bytes)
    while true {
        let frame: MQTTFrame?
        do { frame = try splitter.next() } catch {
            precondition([0x81, 0x95].contains(error.reasonCode.rawValue))
            return
        }
        guard let frame else { return }
        precondition(frame.packetSize <= maximumPacketSize)
        do {
            let packet = try MQTTPacket.decode(frame)
            // Anything we accept, we can write back, and read back as the same packet.
            let again = try MQTTPacket.decode(packet.encoded())
            precondition(again == packet, "round trip changed \(packet.type)")
        } catch {
            precondition([0x81, 0x82, 0x84].contains(error.reasonCode.rawValue), "\(error)")
        }
    }
}

private func drive(_ stream: [UInt8], chunk: Int, seed: UInt8) {
    var configuration = MQTTServerConfiguration()
    configuration.maximumPacketSize = maximumPacketSize
    configuration.receiveMaximum = 4
    configuration.topicAliasMaximum = 4
    configuration.maximumQueuedMessages = 8
    configuration.maximumBufferedBytes = 8192
    var now: UInt64 = 1_000_000_000
    var (connection, _) = MQTTServerConnection.open(configuration: configuration, now: now)
    var clientMaximumPacketSize = Int.max
    var closed = false
    var messageID: UInt64 = 0
    var pending: [MQTTServerEvent] = []

    func run(_ event: MQTTServerEvent) {
        now += 100_000_000
        let actions = connection.handle(event, now: now)
        if closed {
            for action in actions {
                switch action {
                case .discarded, .armDeadline: break
                default: preconditionFailure("\(action) after close")
                }
            }
        }
        for action in actions {
            switch action {
            case .send(let packet):
                let bytes = packet.encoded()
                precondition(bytes.count <= clientMaximumPacketSize, "sent \(bytes.count) > \(clientMaximumPacketSize)")
                precondition((try? MQTTPacket.decode(bytes)) == packet)
            case .authenticate:
                pending.append(seed & 1 == 0 ? .authenticated(.accepted(SessionGrant(assignedClientIdentifier: "assigned")))
                                             : .authenticated(.refused(reasonCode: .notAuthorized, reasonString: "no")))
            case .publish(let publish):
                if let identifier = publish.packetIdentifier {
                    pending.append(identifier % 3 == 0 ? .publishRefused(packetIdentifier: identifier, reasonCode: .notAuthorized, reasonString: "r")
                                                       : .publishAccepted(packetIdentifier: identifier))
                }
                messageID += 1
                pending.append(.deliver(OutboundMessage(id: messageID, message: publish.message)))
            case let .subscribe(identifier, requests):
                pending.append(.subscribed(packetIdentifier: identifier, reasonCodes: requests.map { _ in .grantedQoS1 }))
            case let .unsubscribe(identifier, filters):
                pending.append(.unsubscribed(packetIdentifier: identifier, reasonCodes: filters.map { _ in .success }))
            case .close:
                closed = true
            case .delivered, .acknowledged, .discarded, .armDeadline, .pauseReading, .resumeReading, .sessionDisconnected, .sendBytes:
                break
            }
        }
    }

    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunk)
        run(.received(Array(stream[offset..<end])))
        offset = end
        // The service answers between reads, as it would.
        var answered = 0
        while !pending.isEmpty, answered < 64 {
            let event = pending.removeFirst()
            if case .authenticated = event {
                // The client's Maximum Packet Size is known once CONNECT is decoded; a CONNECT that got
                // this far is in the stream, so find it again.
                if let connect = firstConnect(stream), let limit = connect.properties.maximumPacketSize {
                    clientMaximumPacketSize = Int(limit)
                }
            }
            run(event)
            answered += 1
        }
    }
    run(.deadlineFired)
    now += 1_000_000_000_000
    run(.deadlineFired)
    run(.transportClosed)
}

private func firstConnect(_ stream: [UInt8]) -> ConnectPacket? {
    var splitter = FrameSplitter(maximumPacketSize: maximumPacketSize)
    splitter.append(stream)
    guard let frame = try? splitter.next(), case .connect(let connect)? = try? MQTTPacket.decode(frame) else { return nil }
    return connect
}

private let validConnect: [UInt8] = MQTTPacket.connect(ConnectPacket(clientIdentifier: "fuzz", cleanStart: true, keepAlive: 30,
                                                                      userName: "did:plc:fuzz", password: [1, 2, 3])).encoded()

/// CBOR is read in its shortest form only, so whatever is accepted encodes back to the same bytes.
private func cbor(_ bytes: [UInt8]) {
    if let items = try? CBORArray.decodeByteStrings(bytes, maxCount: 100, maxItemBytes: 1 << 16) {
        precondition(items.count <= 100 && items.allSatisfy { $0.count <= 1 << 16 })
        precondition(CBORArray.encode(byteStrings: items) == bytes, "byte-string array does not round-trip")
    }
    if let items = try? CBORArray.decodeTextStrings(bytes, maxCount: 100, maxItemBytes: 256) {
        precondition(CBORArray.encode(textStrings: items) == bytes, "text-string array does not round-trip")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    cbor(bytes)
    let seed = bytes.first ?? 0
    let chunk = Int(seed % 13) + 1
    splitAndDecode(bytes)
    drive(bytes, chunk: chunk, seed: seed)
    drive(validConnect + bytes, chunk: Int.max, seed: 0)
    return 0
}
