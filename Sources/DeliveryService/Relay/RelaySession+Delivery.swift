import Basics
import DeliveryStore
import Foundation
import MQTT
import MQTTServer

/// What a Relay Session receives: subscriptions authorized per topic, group messages from the event
/// log in seq order (live from the hub, or caught up from the log), Welcomes, and the retained values.
extension RelaySession {
    // MARK: Subscribing (relay workers)

    /// One Reason Code per request (MQTT 5.0 §3.9.3): the granted QoS, or 0x87 for a topic the client
    /// may not read. Returns the retained messages to send after the SUBACK.
    func subscribe(_ requests: [SubscriptionRequest]) -> (codes: [ReasonCode], retained: [(RelayTopic, [UInt8], QoS)]) {
        var codes: [ReasonCode] = []
        var retained: [(RelayTopic, [UInt8], QoS)] = []
        var followed: [String] = []
        for request in requests {
            guard let scope = RelayFilterScope(request.topicFilter) else {
                codes.append(.notAuthorized)
                continue
            }
            let start: Int64?
            do {
                guard try mayRead(scope) else {
                    codes.append(.notAuthorized)
                    continue
                }
                start = try scope.convoID.map { try followStart($0) }
            } catch {
                codes.append(.unspecifiedError)
                continue
            }
            let qos = min(request.options.maximumQoS, .atLeastOnce)
            let subscription = RelaySubscription(filter: request.topicFilter.value, qos: qos.rawValue, noLocal: request.options.noLocal)
            let isNew = state.withLock { state in
                let isNew = state.subscriptions[subscription.filter] == nil
                state.subscriptions[subscription.filter] = subscription
                if let convoID = scope.convoID, let start, state.follows[convoID] == nil {
                    state.follows[convoID] = start
                    // Whatever committed after `start` and before the hub routes to us is read from the log.
                    state.dirty.insert(convoID)
                    followed.append(convoID)
                }
                return isNew
            }
            codes.append(qos == .atLeastOnce ? .grantedQoS1 : .grantedQoS0)
            let wanted = switch request.options.retainHandling {
            case .sendOnSubscribe: true
            case .sendOnNewSubscribe: isNew
            case .doNotSend: false
            }
            if wanted { retained += (try? retainedValues(scope, qos: qos)) ?? [] }
        }
        if !followed.isEmpty { context.hub.route(followed, to: self) }
        scheduleCatchUp()
        return (codes, retained)
    }

    /// Where a new follow of a conversation starts: right after this DID's latest join (its
    /// membershipChangeEvent, which follows the commit that added it), so that a member who
    /// subscribes after joining from a Welcome still gets every commit and message since; the
    /// log's end when the log no longer holds that join.
    private func followStart(_ convoID: String) throws -> Int64 {
        if let joined = try context.store.lastMembershipEventSeq(convoID: convoID, did: did.rawValue, actions: [.joined]) {
            return joined
        }
        return try context.store.lastEventSeq(convoID: convoID) ?? 0
    }

    /// Who may read what (docs/mqtt.md): KeyPackages and client lists, anyone authenticated; a
    /// client's Welcomes, its owner; a group's topics, its current members.
    private func mayRead(_ scope: RelayFilterScope) throws -> Bool {
        switch scope {
        case .topic(.keyPackages), .topic(.user): return true
        case .topic(.sync(let clientID)): return clientID == identity.clientID
        case .topic(.welcome(let clientID)):
            return try clientID == identity.clientID || context.store.relayClientOwner(clientID) == did.rawValue
        case .topic(.groupMessages(let convoID)), .topic(.groupInfo(let convoID)), .group(let convoID):
            if try context.store.isMember(convoID: convoID, did: did) { return true }
            // Relay §8.1: the creator subscribes between its GroupInfo and the creating commit.
            return context.pending.anyGroupInfo(from: did, convoID: convoID) != nil
        }
    }

    /// The retained values a new subscription receives (MQTT 5.0 §3.3.1.3): the client's unconsumed
    /// KeyPackages, the DID's client list, the current verified GroupInfo; Welcomes are caught up.
    private func retainedValues(_ scope: RelayFilterScope, qos: QoS) throws -> [(RelayTopic, [UInt8], QoS)] {
        switch scope {
        case .topic(.keyPackages(let clientID)):
            let packages = try context.store.relayKeyPackages(of: clientID)
            return packages.isEmpty ? [] : [(.keyPackages(clientID: clientID), CBORArray.encode(byteStrings: packages), qos)]
        case .topic(.user(let user)):
            let clients = try context.store.relayClients(of: user)
            return clients.isEmpty ? [] : [(.user(did: user), CBORArray.encode(textStrings: clients), qos)]
        case .topic(.groupInfo(let convoID)), .group(let convoID):
            let convo = try context.store.loadConvo(convoID)
            guard let groupInfo = convo.currentGroupInfo else { return [] }
            state.withLock { $0.groupInfoEpochs[convoID] = max($0.groupInfoEpochs[convoID] ?? -1, convo.epoch) }
            return [(.groupInfo(convoID: convoID), groupInfo, qos)]
        case .topic(.welcome):
            state.withLock { $0.welcomesDirty = true }
            return []
        case .topic(.groupMessages), .topic(.sync):
            return []
        }
    }

    /// Hands retained values to the client (after the SUBACK the caller posted first).
    func deliverRetained(_ values: [(RelayTopic, [UInt8], QoS)], retainFlag: Bool = true) {
        guard !values.isEmpty else { return }
        state.withLock { state in
            guard let link = state.link else { return }
            let events = values.map { topic, payload, qos in
                Self.hand(ApplicationMessage(topic: topic.topicName, payload: payload, qos: qos, retain: retainFlag), as: .retained, in: &state)
            }
            link.post(events)
        }
    }

    /// MQTT 5.0 §3.11.3: 0x00, or 0x11 No subscription existed. A conversation no subscription
    /// reaches any more is no longer followed.
    func unsubscribe(_ filters: [TopicFilter]) -> [ReasonCode] {
        var dropped: [String] = []
        let codes = state.withLock { state in
            filters.map { filter -> ReasonCode in
                guard state.subscriptions.removeValue(forKey: filter.value) != nil else { return .noSubscriptionExisted }
                if let convoID = RelayFilterScope(filter)?.convoID,
                   !state.subscriptions.values.contains(where: { $0.scope?.convoID == convoID }) {
                    state.follows[convoID] = nil
                    state.dirty.remove(convoID)
                    state.fromLog.remove(convoID)
                    dropped.append(convoID)
                }
                return .success
            }
        }
        for convoID in dropped { context.hub.unroute(convoID, from: self) }
        return codes
    }

    /// The subscription a message on `topic` is delivered under: the highest QoS of those matching,
    /// No Local only if all of them ask for it. Nil when none matches.
    static func subscription(for topic: RelayTopic, in state: State) -> RelaySubscription? {
        var found: RelaySubscription?
        for subscription in state.subscriptions.values where subscription.scope?.matches(topic) == true {
            guard var merged = found else {
                found = subscription
                continue
            }
            merged.qos = max(merged.qos, subscription.qos)
            merged.noLocal = merged.noLocal && subscription.noLocal
            found = merged
        }
        return found
    }

    // MARK: Group messages

    func offer(_ convoID: String, events: ArraySlice<PreparedEvent>, announced: Int64) {
        var stop = false
        var behind = false
        state.withLock { state in
            guard state.link != nil, let position = state.follows[convoID] else { return }
            guard !state.dirty.contains(convoID) else { return }
            stop = consume(convoID, events, in: &state)
            if let now = state.follows[convoID], announced > now || (now == position && announced > position) {
                state.dirty.insert(convoID)
                behind = true
            }
        }
        if stop { context.hub.unroute(convoID, from: self) }
        if behind { scheduleCatchUp() }
    }

    func joined(_ convoID: String, before seq: Int64) {}

    /// Hands the conversation's next events to the client, in order, while they continue its
    /// position and it has room; true when the caller's membership ended here (its group
    /// subscriptions end with this event: docs/mqtt.md, "Authorization").
    private func consume(_ convoID: String, _ events: ArraySlice<PreparedEvent>, in state: inout State) -> Bool {
        var out: [MQTTServerEvent] = []
        defer { if !out.isEmpty { state.link?.post(out) } }
        for event in events {
            guard let position = state.follows[convoID] else { return false }
            guard event.seq > position else { continue }
            guard event.seq == position + 1 else {
                state.dirty.insert(convoID)
                return false
            }
            if Self.isFull(state) {
                state.dirty.insert(convoID)
                return false
            }
            state.follows[convoID] = event.seq
            if let row = event.row, let ciphertext = row.ciphertext,
               let subscription = Self.subscription(for: .groupMessages(convoID: convoID), in: state),
               !(subscription.noLocal && state.published.contains(row.msgID)) {
                let message = ApplicationMessage(topic: RelayTopic.groupMessages(convoID: convoID).topicName, payload: ciphertext,
                                                 qos: QoS(rawValue: subscription.qos) ?? .atLeastOnce)
                out.append(Self.hand(message, as: .message(convoID: convoID, eventSeq: event.seq, seq: row.seq), in: &state))
            }
            if event.ends(membershipOf: did.rawValue) {
                for (filter, subscription) in state.subscriptions where subscription.scope?.convoID == convoID {
                    state.subscriptions[filter] = nil
                }
                state.follows[convoID] = nil
                state.dirty.remove(convoID)
                state.fromLog.remove(convoID)
                state.groupInfoEpochs[convoID] = nil
                return true
            }
        }
        return false
    }

    // MARK: Catching up (relay workers)

    func scheduleCatchUp(after delay: Double = 0) {
        let schedule = state.withLock { state in
            guard state.link != nil, !state.catchUpScheduled, !state.dirty.isEmpty || state.welcomesDirty || !state.barriers.isEmpty else {
                return false
            }
            state.catchUpScheduled = true
            return true
        }
        guard schedule else { return }
        if delay > 0 {
            context.workers.submit(after: delay) { [self] in catchUp() }
        } else {
            context.workers.submit { [self] in catchUp() }
        }
    }

    private enum Work {
        /// A conversation from a position, read from the log itself when a barrier asks.
        case convo(String, Int64, fromLog: Bool)
        case welcomes
    }

    private func catchUp() {
        while true {
            let work: Work? = state.withLock { state in
                guard state.link != nil else {
                    state.catchUpScheduled = false
                    return nil
                }
                if !Self.isFull(state) {
                    if state.welcomesDirty {
                        state.welcomesDirty = false
                        return .welcomes
                    }
                    while let convoID = state.dirty.first {
                        state.dirty.remove(convoID)
                        let fromLog = state.fromLog.remove(convoID) != nil
                        if let position = state.follows[convoID] { return .convo(convoID, position, fromLog: fromLog) }
                    }
                }
                // Nothing is being read now: what the barriers waited for is handed.
                answerBarriers(in: &state)
                state.catchUpScheduled = false
                return nil
            }
            guard let work else { return }
            do {
                switch work {
                case .welcomes: try catchUpWelcomes()
                case let .convo(convoID, from, fromLog): try catchUp(convoID, from: from, fromLog: fromLog)
                }
            } catch {
                context.log.warning("relay catch-up failed", ["error": String(describing: type(of: error))])
                state.withLock { state in
                    switch work {
                    case .welcomes: state.welcomesDirty = true
                    case let .convo(convoID, _, fromLog):
                        state.dirty.insert(convoID)
                        if fromLog { state.fromLog.insert(convoID) }
                    }
                    state.catchUpScheduled = false
                }
                scheduleCatchUp(after: 1)
                return
            }
        }
    }

    private func catchUp(_ convoID: String, from: Int64, fromLog: Bool) throws {
        let source = context.source
        let events = try fromLog ? source.logEvents(convoID: convoID, after: from) : source.events(convoID: convoID, after: from)
        let stop = state.withLock { state -> Bool in
            let stop = consume(convoID, events[...], in: &state)
            if !stop, events.count == source.batchSize { state.dirty.insert(convoID) }
            // Not all read (a full batch, or the outstanding limit): the rest from the log too.
            if fromLog, state.dirty.contains(convoID) { state.fromLog.insert(convoID) }
            return stop
        }
        if stop { context.hub.unroute(convoID, from: self) }
    }

    private func catchUpWelcomes() throws {
        let topic = RelayTopic.welcome(clientID: identity.clientID)
        let welcomes = try context.store.relayWelcomes(for: identity.clientID)
        state.withLock { state in
            guard let subscription = Self.subscription(for: topic, in: state), state.link != nil else { return }
            var out: [MQTTServerEvent] = []
            for welcome in welcomes where !state.welcomesHanded.contains(welcome.id) {
                if Self.isFull(state) {
                    state.welcomesDirty = true
                    break
                }
                let qos = QoS(rawValue: subscription.qos) ?? .atLeastOnce
                if qos == .atLeastOnce { state.welcomesHanded.insert(welcome.id) }
                out.append(Self.hand(ApplicationMessage(topic: topic.topicName, payload: welcome.welcome, qos: qos),
                                     as: .welcome(id: welcome.id), in: &state))
            }
            if !out.isEmpty { state.link?.post(out) }
        }
    }

    // MARK: Changes announced on the Relay channel (relay workers)

    func welcomesChanged() {
        state.withLock { $0.welcomesDirty = true }
        scheduleCatchUp()
    }

    /// The conversation's GroupInfo or epoch changed: a newer verified GroupInfo goes to its `/i`
    /// subscribers (a commit that came without one leaves nothing to send: the retained value is
    /// cleared, never stale).
    func groupInfoChanged(_ convoID: String) throws {
        let wanted = state.withLock { Self.subscription(for: .groupInfo(convoID: convoID), in: $0) != nil && $0.link != nil }
        guard wanted else { return }
        let convo = try context.store.loadConvo(convoID)
        guard let groupInfo = convo.currentGroupInfo else { return }
        state.withLock { state in
            guard let subscription = Self.subscription(for: .groupInfo(convoID: convoID), in: state), let link = state.link,
                  convo.epoch > state.groupInfoEpochs[convoID] ?? -1 else { return }
            state.groupInfoEpochs[convoID] = convo.epoch
            let message = ApplicationMessage(topic: RelayTopic.groupInfo(convoID: convoID).topicName, payload: groupInfo,
                                             qos: QoS(rawValue: subscription.qos) ?? .atLeastOnce)
            link.post([Self.hand(message, as: .retained, in: &state)])
        }
    }

    /// A retained value (KeyPackages of a client, a DID's clients) changed: its subscribers get it.
    func retainedChanged(_ topic: RelayTopic) throws {
        let qos = state.withLock { state -> QoS? in
            guard state.link != nil, let subscription = Self.subscription(for: topic, in: state) else { return nil }
            return QoS(rawValue: subscription.qos)
        }
        guard let qos else { return }
        let values = try retainedValues(.topic(topic), qos: qos)
        deliverRetained(values, retainFlag: false)
    }

    /// Whether any subscription reaches `topic` (for routing Relay channel announcements).
    func isSubscribed(to topic: RelayTopic) -> Bool {
        state.withLock { Self.subscription(for: topic, in: $0) != nil }
    }
}
