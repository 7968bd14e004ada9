import MQTT
import MQTTServer

/// Sync barriers (docs/mqtt.md, "Sync"; ours): MQTT has no "end of backlog", and what the Session
/// sends after a reconnect may come from the cache first and the hub later. A nonce the client
/// publishes on `relay/s/{client_id}` comes back on that topic only once everything committed
/// before the publish was handed to the client: every followed conversation read again from the
/// log itself (not the cache), its Welcomes read again, nothing left behind.
extension RelaySession {
    /// Barriers waiting at most; past this a sync is refused (0x97) until answers go out.
    static let maxBarriers = 16

    /// Adds a barrier for `nonce` (a publish on `relay/s` the connection accepted); false when
    /// `connection` is not attached or too many wait. The caller schedules the catch-up that
    /// answers it (after its PUBACK).
    func addBarrier(_ nonce: [UInt8], by connection: ObjectIdentifier) -> Bool {
        state.withLock { state in
            guard state.connection == connection, state.link != nil, state.barriers.count < Self.maxBarriers else { return false }
            state.barriers.append(nonce)
            for convoID in state.follows.keys {
                state.dirty.insert(convoID)
                state.fromLog.insert(convoID)
            }
            if Self.subscription(for: .welcome(clientID: identity.clientID), in: state) != nil { state.welcomesDirty = true }
            return true
        }
    }

    /// Hands every waiting barrier's nonce back on `relay/s/{client_id}` (at the subscription's QoS;
    /// unsubscribed, it is dropped) when nothing is left to read and the client has room. Called
    /// by the catch-up loop when it finds no work, so no read is under way.
    func answerBarriers(in state: inout State) {
        guard !state.barriers.isEmpty, state.dirty.isEmpty, !state.welcomesDirty, state.retainedDue.isEmpty, !isFull(state),
              let link = state.link else { return }
        let topic = RelayTopic.sync(clientID: identity.clientID)
        let barriers = state.barriers
        state.barriers = []
        guard let subscription = Self.subscription(for: topic, in: state) else { return }
        let qos = QoS(rawValue: subscription.qos) ?? .atLeastOnce
        link.post(barriers.map { nonce in Self.hand(ApplicationMessage(topic: topic.topicName, payload: nonce, qos: qos), as: .sync, in: &state) })
    }
}
