import Basics
import MQTT
import MQTTClient
import Primitives

/// The known user of the MQTT abuse items: an account whose key the service holds, connecting to
/// the MQTT listener with a fresh token, then syncing (a nonce published on its relay/s and
/// answered after its backlog, docs/mqtt.md "Sync") and disconnecting: a CONNECT, a PUBLISH and the
/// Session's catch-up, all on the relay workers. A call returns the seconds from the TCP connect to
/// the nonce's return (the token is made before the clock starts).
struct KnownRelayClient {
    let user: BenchUser
    let port: Int
    let audience: String
    let clientID = Hex.encode(SecureRandom.bytes(16))

    init(_ known: KnownUser, port: Int) throws {
        user = known.user
        self.port = port
        audience = known.client.audience
        _ = try connectAndSync()
    }

    func connectAndSync() throws -> Double {
        let options = MQTTClient.Options(clientIdentifier: clientID, userName: user.did.rawValue,
                                         password: Array(try user.token(audience: audience, nsid: "blue.catbird.mls.mqttConnect").utf8))
        let clock = Stopwatch()
        do {
            let client = try MQTTClient(host: "127.0.0.1", port: port, options: options)
            let topic = "relay/s/\(clientID)"
            guard try client.subscribe(topic) == .grantedQoS1 else { throw Self.failure("SUBSCRIBE refused") }
            let nonce = SecureRandom.bytes(16)
            guard let ack = try client.publish(topic: topic, payload: nonce), !ack.reasonCode.isFailure else {
                throw Self.failure("sync PUBLISH refused")
            }
            while let message = try client.receive(timeout: 10) {
                if message.topic == topic, message.payload == nonce {
                    client.disconnect()
                    return clock.seconds
                }
            }
            throw Self.failure("no sync answer within 10 s")
        } catch let failure as MQTTClient.Failure {
            throw Self.failure("\(failure)")
        }
    }

    /// A failed call as the abuse bench counts the known user's failures (an answer without status).
    static func failure(_ what: String) -> BenchError {
        let text = what.replacingOccurrences(of: "\"", with: "'")
        return .call(nsid: "MQTT", status: 0, body: "{\"error\":\"MQTT \(text)\"}")
    }
}
