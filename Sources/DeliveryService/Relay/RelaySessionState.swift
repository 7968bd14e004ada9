import Foundation
import MQTT

/// A subscription as the Session keeps it (MQTT 5.0 §4.1: subscriptions are Session State).
struct RelaySubscription: Codable, Hashable, Sendable {
    var filter: String
    /// The granted QoS (0 or 1).
    var qos: UInt8
    var noLocal: Bool

    var scope: RelayFilterScope? { (try? TopicFilter(filter)).flatMap(RelayFilterScope.init) }
}

/// What a delivered message was, so that an unacknowledged one can be rebuilt from the store when the
/// Session resumes on another node or after a restart.
enum RelayDeliveryRef: Codable, Hashable, Sendable {
    /// The group message of event `eventSeq`, stored with message `seq`.
    case message(convoID: String, eventSeq: Int64, seq: Int64)
    case welcome(id: Int64)
    /// A retained value (KeyPackages, a client list, a GroupInfo): current values are resent instead.
    case retained
    /// A sync barrier's answer on `relay/s`: not kept (a client that reconnects syncs again).
    case sync
}

/// The Session State kept in `mqtt_sessions.state` between connections: subscriptions, the last
/// event_seq handed to the client per followed conversation, the GroupInfo epoch it has, and the
/// messages it has not acknowledged (in flight with their Packet Identifiers, or never sent), in
/// the order first sent.
struct RelaySessionState: Codable, Sendable, Equatable {
    struct Unacknowledged: Codable, Sendable, Equatable {
        var ref: RelayDeliveryRef
        var packetIdentifier: UInt16?
        var qos: UInt8
    }

    var subscriptions: [RelaySubscription] = []
    var positions: [String: Int64] = [:]
    var groupInfoEpochs: [String: Int64] = [:]
    var unacknowledged: [Unacknowledged] = []

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The stored form; an unreadable or empty one (a new Session) is an empty state.
    init(decoding text: String) {
        self = (try? JSONDecoder().decode(RelaySessionState.self, from: Data(text.utf8))) ?? RelaySessionState()
    }

    init() {}
}
