import MQTT
import MQTTClient
import Primitives

/// One MQTT connection of a client directory's Session (Clean Start = 0, a long expiry): what the
/// Relay client publishes and receives through. Publishes wait for their PUBACK; a refusal becomes
/// an error carrying the service's Reason Code and Reason String. Messages that arrive while waiting
/// for something else are kept, in order. The Session's backlog ends where the service answers a
/// sync on the client's own relay/s/{client_id} (subscribed on connecting).
final class MLSRelayTransport {
    let client: MQTTClient
    let syncTopic: String
    /// Seconds a sync waits for the service's answer, whatever it delivers meanwhile.
    let syncDeadline: Double
    private var kept: [MQTTClient.Message] = []

    init(configuration: MLSRelayConfiguration, did: String, clientID: String, token: String) throws(MLSClientError) {
        let options = MQTTClient.Options(clientIdentifier: clientID, userName: did, password: Array(token.utf8), cleanStart: false,
                                         sessionExpiryInterval: configuration.sessionExpiry, keepAlive: 60)
        do {
            client = try MQTTClient(host: configuration.host, port: configuration.port, tls: configuration.tls,
                                    trustAnchorPEM: configuration.trustAnchorPEM, options: options)
        } catch {
            throw .relay("\(error)")
        }
        syncTopic = "relay/s/\(clientID)"
        syncDeadline = configuration.syncDeadline
        try subscribe(syncTopic)
    }

    /// A QoS 1 PUBLISH; throws the refusal.
    func publish(_ topic: String, _ payload: [UInt8]) throws(MLSClientError) {
        let ack: PubAckPacket?
        do { ack = try client.publish(topic: topic, payload: payload) } catch { throw .relay("\(error)") }
        guard let ack else { return }
        if ack.reasonCode.isFailure { throw .relay(Self.describe(ack.reasonCode, ack.properties.reasonString)) }
    }

    static func describe(_ code: ReasonCode, _ reason: String?) -> String {
        "refused (\(code))" + (reason.map { ": \($0)" } ?? "")
    }

    func subscribe(_ filter: String) throws(MLSClientError) {
        let code: ReasonCode
        do { code = try client.subscribe(filter, noLocal: true) } catch { throw .relay("\(error)") }
        guard !code.isFailure else { throw .relay("SUBSCRIBE \(filter) " + Self.describe(code, nil)) }
    }

    func unsubscribe(_ filters: [String]) {
        _ = try? client.unsubscribe(filters)
    }

    /// The retained value of `topic`: subscribes, takes what arrived on it before the answer to a
    /// sync (the service sends retained values right after the SUBACK), unsubscribes.
    func retained(_ topic: String) throws(MLSClientError) -> [UInt8]? {
        try subscribe(topic)
        defer { unsubscribe([topic]) }
        var value: [UInt8]?
        try sync { message throws(MLSClientError) in
            guard message.topic == topic else { return false }
            value = message.payload
            return true
        }
        return value
    }

    /// Takes in everything the Session delivers before the service answers a sync (docs/mqtt.md,
    /// "Sync"): a random nonce published on relay/s/{client_id} comes back once everything
    /// committed before it was handed to this client, in order. `handle` gets each message in
    /// order, messages kept by an earlier sync first: a message it takes (true) is acknowledged once
    /// it returns (its effect stored), one it leaves (false) is kept for the next sync.
    func sync(_ handle: (MQTTClient.Message) throws(MLSClientError) -> Bool) throws(MLSClientError) {
        let nonce = SecureRandom.bytes(16)
        try publish(syncTopic, nonce)
        let deadline = ContinuousClock.now.advanced(by: .seconds(syncDeadline))
        var pending = kept
        kept = []
        defer { kept += pending }
        while true {
            let message: MQTTClient.Message
            if !pending.isEmpty {
                message = pending.removeFirst()
            } else {
                let left = ContinuousClock.now.duration(to: deadline)
                let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
                guard seconds > 0, let received = try receive(timeout: seconds) else {
                    throw .relay("the service did not answer the sync on \(syncTopic) within \(Int(syncDeadline)) s")
                }
                message = received
            }
            if message.topic == syncTopic {
                acknowledge(message)
                // Another nonce: an earlier connection's sync, resent with the Session.
                if message.payload == nonce { return }
                continue
            }
            if try handle(message) { acknowledge(message) } else { kept.append(message) }
        }
    }

    func acknowledge(_ message: MQTTClient.Message) {
        if let identifier = message.packetIdentifier { try? client.acknowledge(identifier) }
    }

    private func receive(timeout: Double) throws(MLSClientError) -> MQTTClient.Message? {
        do { return try client.receive(timeout: timeout, acknowledge: false) } catch { throw .relay("\(error)") }
    }

    func close() {
        client.disconnect()
    }
}
