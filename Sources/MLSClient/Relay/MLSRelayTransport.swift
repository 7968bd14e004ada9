import MQTT
import MQTTClient

/// One MQTT connection of a client directory's Session (Clean Start = 0, a long expiry): what the
/// Relay client publishes and receives through. Publishes wait for their PUBACK; a refusal becomes
/// an error carrying the service's Reason Code and Reason String. Messages that arrive while waiting
/// for something else are kept, in order.
final class MLSRelayTransport {
    let client: MQTTClient
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

    /// The retained value of `topic`: subscribes, takes what arrives on it within `timeout`, unsubscribes.
    func retained(_ topic: String, timeout: Double) throws(MLSClientError) -> [UInt8]? {
        try subscribe(topic)
        defer { unsubscribe([topic]) }
        guard let message = try next(on: topic, timeout: timeout) else { return nil }
        acknowledge(message)
        return message.payload
    }

    /// The next message on `topic`, others kept for `drain`.
    func next(on topic: String, timeout: Double) throws(MLSClientError) -> MQTTClient.Message? {
        if let index = kept.firstIndex(where: { $0.topic == topic }) { return kept.remove(at: index) }
        let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            guard let message = try receive(timeout: seconds) else { return nil }
            if message.topic == topic { return message }
            kept.append(message)
        }
    }

    /// Everything that arrives until nothing has for `quiet` seconds, in order (messages are
    /// acknowledged by `acknowledge` once the caller has stored their effect).
    func drain(quiet: Double) throws(MLSClientError) -> [MQTTClient.Message] {
        var out = kept
        kept = []
        while let message = try receive(timeout: quiet) { out.append(message) }
        return out
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
