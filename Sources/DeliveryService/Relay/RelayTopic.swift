import Basics
import MQTT

/// A topic of the Relay protocol (docs/mqtt.md), all under `relay/`: what each carries and who may
/// publish and subscribe is decided by the service from the kind and its key.
enum RelayTopic: Hashable, Sendable {
    /// `relay/k/{client_id}`: the client's KeyPackages (a CBOR array of KeyPackage MLSMessages).
    case keyPackages(clientID: String)
    /// `relay/w/{client_id}`: Welcomes for the client's KeyPackages.
    case welcome(clientID: String)
    /// `relay/g/{group_id}/m`: the conversation's messages and commits, in seq order.
    case groupMessages(convoID: String)
    /// `relay/g/{group_id}/i`: the conversation's current verified GroupInfo (retained).
    case groupInfo(convoID: String)
    /// `relay/u/{did}`: the DID's client_ids (a CBOR array of text strings, retained; ours).
    case user(did: String)
    /// `relay/s/{client_id}`: the client's sync barriers (ours): a nonce published here comes back
    /// once everything committed before it was handed to the client (docs/mqtt.md, "Sync").
    case sync(clientID: String)

    init?(_ name: TopicName) {
        // Levels split on the bytes: a SUBSCRIBE's filters are each parsed here on a relay worker.
        let levels = Self.levels(name.value)
        guard levels.count >= 3, levels[0] == "relay" else { return nil }
        switch (levels[1], levels.count) {
        case ("k", 3) where Self.isClientID(levels[2]): self = .keyPackages(clientID: String(levels[2]))
        case ("w", 3) where Self.isClientID(levels[2]): self = .welcome(clientID: String(levels[2]))
        case ("s", 3) where Self.isClientID(levels[2]): self = .sync(clientID: String(levels[2]))
        case ("u", 3) where (try? DID(String(levels[2]))) != nil: self = .user(did: String(levels[2]))
        case ("g", 4) where Self.isGroupID(levels[2]):
            switch levels[3] {
            case "m": self = .groupMessages(convoID: String(levels[2]))
            case "i": self = .groupInfo(convoID: String(levels[2]))
            default: return nil
            }
        default: return nil
        }
    }

    /// MQTT 5.0 §4.7.1.1: the levels between '/', empty ones kept, split on the UTF-8 bytes ('/' is
    /// never part of another character's encoding).
    static func levels(_ text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    var name: String {
        switch self {
        case .keyPackages(let clientID): "relay/k/\(clientID)"
        case .welcome(let clientID): "relay/w/\(clientID)"
        case .groupMessages(let convoID): "relay/g/\(convoID)/m"
        case .groupInfo(let convoID): "relay/g/\(convoID)/i"
        case .user(let did): "relay/u/\(did)"
        case .sync(let clientID): "relay/s/\(clientID)"
        }
    }

    /// The topic as a Topic Name; every Relay topic is a valid one.
    var topicName: TopicName { (try? TopicName(name)) ?? (try! TopicName("relay")) }

    /// 32 lower-case hex digits (a random 128-bit id, as the Relay spec says).
    static func isClientID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The lower-case hex of an MLS group id (1–255 bytes), as conversation ids are.
    static func isGroupID(_ text: some StringProtocol) -> Bool {
        let count = text.utf8.count
        return count >= 2 && count <= 510 && count % 2 == 0
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// What a subscription filter reaches, as the service authorizes it: one Relay topic, or a group's
/// topics through a wildcard (`relay/g/{group_id}/+` or `relay/g/{group_id}/#`). Wildcards across
/// clients, users or groups are not offered: nil, and the filter is refused (0x87).
enum RelayFilterScope: Hashable, Sendable {
    case topic(RelayTopic)
    case group(convoID: String)

    init?(_ filter: TopicFilter) {
        guard !filter.isShared else { return nil }
        if !filter.hasWildcards {
            guard let name = try? TopicName(filter.value), let topic = RelayTopic(name) else { return nil }
            self = .topic(topic)
            return
        }
        let levels = RelayTopic.levels(filter.value)
        guard levels.count == 4, levels[0] == "relay", levels[1] == "g", RelayTopic.isGroupID(levels[2]),
              levels[3] == "+" || levels[3] == "#" else { return nil }
        self = .group(convoID: String(levels[2]))
    }

    /// The conversation whose membership decides the right to read, if any.
    var convoID: String? {
        switch self {
        case .group(let convoID): convoID
        case .topic(.groupMessages(let convoID)), .topic(.groupInfo(let convoID)): convoID
        case .topic: nil
        }
    }

    func matches(_ topic: RelayTopic) -> Bool {
        switch (self, topic) {
        case let (.topic(mine), _): mine == topic
        case let (.group(convoID), .groupMessages(other)), let (.group(convoID), .groupInfo(other)): convoID == other
        case (.group, _): false
        }
    }
}
