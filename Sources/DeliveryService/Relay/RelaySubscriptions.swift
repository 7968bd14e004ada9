/// A Session's subscriptions (MQTT 5.0 §4.1), each filter's scope parsed once and indexed by it:
/// finding what a topic is delivered under costs two lookups however many subscriptions there are,
/// so an announcement's scan of the attached Sessions does not grow with them.
struct RelaySubscriptions: Sendable {
    private var byFilter: [String: (subscription: RelaySubscription, scope: RelayFilterScope)] = [:]
    /// Filters by what they reach: one topic, or a group through a wildcard.
    private var byScope: [RelayFilterScope: Set<String>] = [:]

    var count: Int { byFilter.count }
    var isEmpty: Bool { byFilter.isEmpty }

    /// In filter order (as stored in the Session State).
    var all: [RelaySubscription] { byFilter.values.map(\.subscription).sorted { $0.filter < $1.filter } }

    func contains(_ filter: String) -> Bool { byFilter[filter] != nil }

    /// Adds or replaces (MQTT 5.0 §3.8.4: the same filter again replaces the subscription); true
    /// when the filter is new.
    @discardableResult
    mutating func insert(_ subscription: RelaySubscription, scope: RelayFilterScope) -> Bool {
        let previous = byFilter.updateValue((subscription, scope), forKey: subscription.filter)
        if let previous, previous.scope != scope { byScope[previous.scope]?.remove(subscription.filter) }
        byScope[scope, default: []].insert(subscription.filter)
        return previous == nil
    }

    /// Removes the filter's subscription; the scope it had, nil when there was none.
    @discardableResult
    mutating func remove(_ filter: String) -> RelayFilterScope? {
        guard let removed = byFilter.removeValue(forKey: filter) else { return nil }
        byScope[removed.scope]?.remove(filter)
        if byScope[removed.scope]?.isEmpty == true { byScope[removed.scope] = nil }
        return removed.scope
    }

    /// Every subscription whose right to read is the conversation's membership.
    mutating func removeAll(of convoID: String) {
        for scope in Self.scopes(of: convoID) {
            for filter in byScope[scope] ?? [] { byFilter[filter] = nil }
            byScope[scope] = nil
        }
    }

    func hasAny(of convoID: String) -> Bool {
        Self.scopes(of: convoID).contains { byScope[$0] != nil }
    }

    /// The subscription a message on `topic` is delivered under: the highest QoS of those matching,
    /// No Local only if all of them ask for it. Nil when none matches.
    func matching(_ topic: RelayTopic) -> RelaySubscription? {
        var scopes: [RelayFilterScope] = [.topic(topic)]
        switch topic {
        case .groupMessages(let convoID), .groupInfo(let convoID): scopes.append(.group(convoID: convoID))
        case .keyPackages, .welcome, .user, .sync: break
        }
        var found: RelaySubscription?
        for scope in scopes {
            for filter in byScope[scope] ?? [] {
                guard let subscription = byFilter[filter]?.subscription else { continue }
                guard var merged = found else {
                    found = subscription
                    continue
                }
                merged.qos = max(merged.qos, subscription.qos)
                merged.noLocal = merged.noLocal && subscription.noLocal
                found = merged
            }
        }
        return found
    }

    private static func scopes(of convoID: String) -> [RelayFilterScope] {
        [.topic(.groupMessages(convoID: convoID)), .topic(.groupInfo(convoID: convoID)), .group(convoID: convoID)]
    }
}

extension RelayFilterScope {
    /// The topic whose retained value a new subscription of this scope receives (MQTT 5.0
    /// §3.3.1.3), if it has one: KeyPackages, a DID's clients, a group's GroupInfo.
    var retainedTopic: RelayTopic? {
        switch self {
        case .topic(let topic):
            switch topic {
            case .keyPackages, .user, .groupInfo: topic
            case .welcome, .groupMessages, .sync: nil
            }
        case .group(let convoID): .groupInfo(convoID: convoID)
        }
    }
}
