import Basics
import Foundation
import MQTT
import Primitives

/// The MQTT listener's items (docs/SECURITY.md, "The MQTT listener"), against the limited server's
/// MQTT port (production limits): one SUBSCRIBE against the process (m1), SUBSCRIBE floods against
/// the relay workers (m2), strangers' CONNECTs against the DID-fetch budget (m4). The known user
/// connects over MQTT, syncs and disconnects (`KnownRelayClient`). Revocation (3) and retention gaps
/// (5) are correctness, shown by MQTTAbuseTests, not load.
extension AbuseItemsBench {
    func mqttItems() -> [(String, () throws -> Item?)] {
        [("m1", subscribeCopiesItem), ("m2", subscribeFloodItem), ("m4", strangerConnectItem)]
    }

    static let mqttConnect = "blue.catbird.mls.mqttConnect"

    /// A CONNECT as `user` with a fresh token (for `nsid`, mqttConnect by default).
    static func connectPacket(_ user: BenchUser, clientID: String, audience: String, nsid: String = mqttConnect) -> ConnectPacket {
        ConnectPacket(clientIdentifier: clientID, keepAlive: 60, userName: user.did.rawValue,
                      password: Array(((try? user.token(audience: audience, nsid: nsid)) ?? "-").utf8))
    }

    static func subscribePacket(_ filters: [String], identifier: UInt16) -> [UInt8] {
        MQTTPacket.subscribe(SubscribePacket(packetIdentifier: identifier, subscriptions: filters.map {
            SubscribePacket.Subscription(topicFilter: $0, options: SubscriptionOptions(maximumQoS: .atLeastOnce))
        })).encoded()
    }

    /// "SUBACK of 24384: 0x97 Quota exceeded", the distinct codes of one SUBACK.
    static func label(_ ack: SubAckPacket) -> String {
        "SUBACK of \(ack.reasonCodes.count): " + Set(ack.reasonCodes).map { "\($0)" }.sorted().joined(separator: ", ")
    }

    /// An attacking connection of `user` (a fresh client_id) from the target's attacker address;
    /// nil, counted, when it is refused.
    static func attackingConnection(port: Int, _ target: Target, as user: BenchUser, run: AttackRun) -> RawMQTTConnection? {
        guard let (connection, code) = RawMQTTConnection.connect(port: port, from: target.attacker.source, connectPacket(
            user, clientID: Hex.encode(SecureRandom.bytes(16)), audience: target.client.audience)), code == .success else {
            run.tally.add("attacking connection refused")
            return nil
        }
        return connection
    }

    /// An MQTT item: its known user connects, syncs and disconnects while the attack runs.
    private func mqttItem(_ number: String, on target: Target, known: KnownRelayClient, attack: String, stoppedBy: String,
                          threads: Int, _ attacker: @escaping @Sendable (_ thread: Int, _ run: AttackRun) -> Void) -> Item {
        Item(number: number, attack: attack, stoppedBy: stoppedBy, target: target, knownCall: "MQTT CONNECT + sync",
             knownRate: knownRate, call: known.connectAndSync, threads: threads, attacker: attacker)
    }

    /// The limited server's MQTT listener and its known MQTT user; nil when it has none.
    private func mqttTarget() throws -> (Target, Int, KnownRelayClient)? {
        guard let limited, let port = limited.mqttPort else { return nil }
        return (limited, port, try KnownRelayClient(limited.known, port: port))
    }

    /// Hole 1: one account binds what client_ids it can (300 CONNECTs), then four of its connections
    /// each send, in turn and waiting for the answer, a 1 MiB SUBSCRIBE of its own relay/u filter
    /// ~24,000 times and one of 128 copies, acknowledging what comes back.
    func subscribeCopiesItem() throws -> Item? {
        guard let (target, port, known) = try mqttTarget() else { return nil }
        let mallory = try attackerAccount()
        let audience = target.client.audience, source = target.attacker.source
        let filter = "relay/u/\(mallory.did.rawValue)"
        let copies = ((1 << 20) - 64) / (filter.utf8.count + 3)
        let packets = [Self.subscribePacket(Array(repeating: filter, count: copies), identifier: 7),
                       Self.subscribePacket(Array(repeating: filter, count: 128), identifier: 8)]
        return mqttItem("m1", on: target, known: known,
                        attack: "one account: 300 CONNECTs binding client_ids, then 4 connections each sending in turn a 1 MiB "
                        + "SUBSCRIBE of \(copies) × its relay/u filter and one of 128 copies",
                    stoppedBy: "MQTT_MAX_CLIENTS_PER_DID (32, then CONNACK 0x97); MQTT_MAX_FILTERS_PER_SUBSCRIBE (128: a larger "
                        + "SUBSCRIBE refused undecoded, SUBACK 0x97); repeated filters one subscription and one retained value; "
                        + "RATE_LIMIT_SUBSCRIBE (20/s, burst 200 filters)",
                    threads: 4) { thread, run in
            guard let connection = Self.attackingConnection(port: port, target, as: mallory, run: run) else { return }
            if thread == 0 {
                for _ in 0..<300 where run.isRunning {
                    let bound = RawMQTTConnection.connect(port: port, from: source, Self.connectPacket(
                        mallory, clientID: Hex.encode(SecureRandom.bytes(16)), audience: audience))
                    run.tally.add("binding CONNACK " + (bound?.1.map { "\($0)" } ?? "none"))
                }
            }
            while run.isRunning {
                for packet in packets {
                    guard connection.send(bytes: packet) else { return run.tally.add("connection ended") }
                    while let answer = connection.next() {
                        if case .suback(let ack) = answer {
                            run.tally.add(Self.label(ack))
                            break
                        }
                        guard case .publish(let publish) = answer else { continue }
                        run.tally.add("retained \(publish.topicName.prefix(8))… value")
                        guard let identifier = publish.packetIdentifier else { continue }
                        connection.send(.puback(PubAckPacket(packetIdentifier: identifier)))
                    }
                }
            }
        }
    }

    /// Hole 2: forty accounts, one connection each, pipeline SUBSCRIBEs of unknown groups' topics
    /// (one membership query apiece): three of 1 MiB (23,000 filters), then 128-filter ones for the
    /// rest of the run, reading the answers that have come between writes.
    func subscribeFloodItem() throws -> Item? {
        guard let (target, port, known) = try mqttTarget() else { return nil }
        let accounts = try (0..<40).map { _ in try attackerAccount() }
        func unknownGroups(_ count: Int) -> [String] { (0..<count).map { _ in "relay/g/\(Hex.encode(SecureRandom.bytes(16)))/m" } }
        let large = (0..<3).map { Self.subscribePacket(unknownGroups(23_000), identifier: UInt16(1 + $0)) }
        let filters = unknownGroups(128)
        return mqttItem("m2", on: target, known: known,
                        attack: "40 accounts, one connection each, pipelining SUBSCRIBEs of unknown groups' /m: three of 1 MiB "
                        + "(23,000 filters), then 128-filter ones flat out",
                    stoppedBy: "MQTT_MAX_FILTERS_PER_SUBSCRIBE (128, larger refused undecoded); MQTT_MAX_QUEUED_JOBS / _BYTES (64, "
                        + "2 MiB: reading pauses); 8 filters per job, 2 jobs per turn of a relay worker; RATE_LIMIT_SUBSCRIBE "
                        + "(20/s, burst 200 filters per account; the connection unread while it is spent); MQTT_WORKER_THREADS at "
                        + "most half of DATABASE_POOL_SIZE",
                    threads: accounts.count) { thread, run in
            guard let connection = Self.attackingConnection(port: port, target, as: accounts[thread], run: run) else { return }
            func readAnswers() {
                while connection.socket.hasInput {
                    guard let answer = connection.next() else { return }
                    if case .suback(let ack) = answer { run.tally.add(Self.label(ack)) }
                }
            }
            for packet in large where run.isRunning {
                guard connection.send(bytes: packet) else { return run.tally.add("write failed (the server reads no more)") }
                readAnswers()
            }
            var identifier: UInt16 = 100
            while run.isRunning {
                identifier = identifier == .max ? 100 : identifier + 1
                guard connection.send(bytes: Self.subscribePacket(filters, identifier: identifier)) else {
                    return run.tally.add("write failed (the server reads no more)")
                }
                readAnswers()
            }
        }
    }

    /// Hole 4: strangers' CONNECTs from one address, each a random did:plc (whose document the
    /// directory sends only after 20 s) with a token for getConvos: up to 48 waiting for their
    /// CONNACK at once (MAX_CONNECTIONS_PER_IP is 64), each answered one replaced at once.
    func strangerConnectItem() throws -> Item? {
        guard let (target, port, known) = try mqttTarget() else { return nil }
        let audience = target.client.audience, source = target.attacker.source
        return mqttItem("m4", on: target, known: known,
                        attack: "strangers' CONNECTs from one address, 48 waiting at once: each a random did:plc (its "
                        + "document comes after 20 s) with a token for getConvos",
                    stoppedBy: "RATE_LIMIT_DID_RESOLUTION (2/s, burst 30) charged before any fetch, whatever method the token "
                        + "names; past it CONNACK 0x97; the fetches set aside (no relay worker waits), each CONNECT answered within "
                        + "the 3 s fetch deadline",
                    threads: 1) { _, run in
            var waiting: [RawMQTTConnection] = []
            while run.isRunning {
                while waiting.count < 48, let stranger = try? BenchUser() {
                    guard let connection = RawMQTTConnection.open(port: port, from: source) else {
                        run.tally.add("connect failed")
                        break
                    }
                    connection.send(.connect(Self.connectPacket(stranger, clientID: Hex.encode(SecureRandom.bytes(16)),
                                                                audience: audience, nsid: KnownUser.getConvos)))
                    waiting.append(connection)
                }
                waiting.removeAll { connection in
                    guard connection.socket.hasInput else { return false }
                    run.tally.add("CONNACK " + (connection.connack().map { "\($0)" } ?? "none"))
                    return true
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
            run.tally.add("no CONNACK yet when the attack stopped", count: waiting.count)
        }
    }
}
