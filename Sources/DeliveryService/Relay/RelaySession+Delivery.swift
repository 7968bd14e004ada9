import Basics
import DeliveryStore
import Foundation
import MQTT
import MQTTServer

/// What a Relay Session receives: subscriptions authorized per topic, group messages from the event
/// log in seq order (live from the hub, or caught up from the log), Welcomes, and the retained values.
extension RelaySession {
    // MARK: Subscribing (relay workers)

    /// Who may read a filter's topics, and where a group's follow starts.
    private enum ReadAccess {
        case denied
        case granted
        /// A group's topics: granted, its log followed from just after this event.
        case follow(after: Int64)
    }

    /// Examines up to `budget` more filters of `work` (MQTT 5.0 §3.9.3): each answered with the
    /// granted QoS, 0x87 for a topic the client may not read, or 0x97 past the DID's
    /// `RATE_LIMIT_SUBSCRIBE` (this filter and the packet's later ones, all at once: they cost
    /// nothing) or the Session's `maxSubscriptions`. Retained values are handed by the catch-up,
    /// which the caller schedules once it has posted the SUBACK.
    func subscribe(_ work: inout RelaySubscribeWork, budget: Int) {
        var batch: [(SubscriptionRequest, RelayFilterScope?)] = []
        while batch.count < budget || work.rateLimited != nil, let request = work.take() {
            if work.rateLimited == nil { work.rateLimited = takeSubscribeToken() }
            guard work.rateLimited == nil else {
                work.answer(request, with: .quotaExceeded)
                continue
            }
            batch.append((request, RelayFilterScope(request.topicFilter)))
        }
        // The batch's group filters are authorized in one statement.
        let convoIDs = Set(batch.compactMap { $0.1?.convoID })
        let starts: [String: RelayFollowStart]
        do { starts = try context.store.relayFollowStarts(convoIDs: convoIDs.sorted(), did: did) } catch {
            for (request, _) in batch { work.answer(request, with: .unspecifiedError) }
            return
        }
        var followed: [String] = []
        for (request, scope) in batch {
            work.answer(request, with: subscribe(request, scope: scope, starts: starts, followed: &followed))
        }
        if !followed.isEmpty { context.hub.route(followed, to: self) }
    }

    /// One token of the DID's subscription budget (`RATE_LIMIT_SUBSCRIBE`): nil when taken, else
    /// the seconds until there is one.
    private func takeSubscribeToken() -> Int? {
        guard case .limited(let retryAfter) = context.rateLimits.checkDID(did.rawValue, class: .subscribe) else { return nil }
        context.metrics?.recordRateLimited(scope: RateLimitClass.subscribe.rawValue)
        return retryAfter
    }

    private func subscribe(_ request: SubscriptionRequest, scope: RelayFilterScope?, starts: [String: RelayFollowStart],
                           followed: inout [String]) -> ReasonCode {
        guard let scope else { return .notAuthorized }
        let filter = request.topicFilter.value
        let full = state.withLock { !$0.subscriptions.contains(filter) && $0.subscriptions.count >= context.settings.maxSubscriptions }
        if full { return .quotaExceeded }
        let access: ReadAccess
        do { access = try readAccess(scope, starts: starts) } catch { return .unspecifiedError }
        if case .denied = access { return .notAuthorized }
        let qos = min(request.options.maximumQoS, .atLeastOnce)
        let subscription = RelaySubscription(filter: filter, qos: qos.rawValue, noLocal: request.options.noLocal)
        let follows = state.withLock { state -> Bool in
            let isNew = state.subscriptions.insert(subscription, scope: scope)
            let wanted = switch request.options.retainHandling {
            case .sendOnSubscribe: true
            case .sendOnNewSubscribe: isNew
            case .doNotSend: false
            }
            if wanted, let topic = scope.retainedTopic { Self.due(topic, retainFlag: true, in: &state) }
            // Welcomes are not retained: each subscription reads them again.
            if case .topic(.welcome) = scope { state.welcomesDirty = true }
            guard case .follow(let start) = access, let convoID = scope.convoID, state.follows[convoID] == nil else { return false }
            state.follows[convoID] = start
            // Whatever committed after `start` and before the hub routes to us is read from the log.
            state.dirty.insert(convoID)
            return true
        }
        if follows, let convoID = scope.convoID { followed.append(convoID) }
        return qos == .atLeastOnce ? .grantedQoS1 : .grantedQoS0
    }

    /// Who may read what (docs/mqtt.md): KeyPackages and client lists, anyone authenticated; a
    /// client's Welcomes, its owner; a group's topics, its current members, followed from their
    /// latest join, read in the same statement as the membership (`starts`) so that a removal
    /// committed meanwhile comes after the start. A held GroupInfo opens a group only while it does
    /// not exist.
    private func readAccess(_ scope: RelayFilterScope, starts: [String: RelayFollowStart]) throws -> ReadAccess {
        switch scope {
        case .topic(.keyPackages), .topic(.user): return .granted
        case .topic(.sync(let clientID)): return clientID == identity.clientID ? .granted : .denied
        case .topic(.welcome(let clientID)):
            return try clientID == identity.clientID || context.store.relayClientOwner(clientID) == did.rawValue ? .granted : .denied
        case .topic(.groupMessages(let convoID)), .topic(.groupInfo(let convoID)), .group(let convoID):
            switch starts[convoID] ?? .noConversation {
            case .member(let after): return .follow(after: after)
            case .notMember: return .denied
            // Relay §8.1: the creator subscribes between its GroupInfo and the creating commit.
            case .noConversation: return context.pending.anyGroupInfo(from: did, convoID: convoID) != nil ? .follow(after: 0) : .denied
            }
        }
    }

    /// Queues `topic`'s retained value for the catch-up (once, however often it is asked for).
    static func due(_ topic: RelayTopic, retainFlag: Bool, in state: inout State) {
        if let flag = state.retainedFlags[topic] {
            state.retainedFlags[topic] = flag || retainFlag
            return
        }
        state.retainedDue.append(topic)
        state.retainedFlags[topic] = retainFlag
    }

    /// MQTT 5.0 §3.11.3: 0x00, or 0x11 No subscription existed; 0x83 past the DID's
    /// `RATE_LIMIT_SUBSCRIBE` (UNSUBACK has no Quota exceeded), with the seconds until the budget has
    /// a token again. A conversation no subscription reaches any more is no longer followed.
    func unsubscribe(_ filters: [TopicFilter]) -> (codes: [ReasonCode], rateLimited: Int?) {
        var dropped: [String] = []
        var limited: Int?
        let codes = filters.map { filter -> ReasonCode in
            if limited == nil { limited = takeSubscribeToken() }
            guard limited == nil else { return .implementationSpecificError }
            return state.withLock { state in
                guard let scope = state.subscriptions.remove(filter.value) else { return .noSubscriptionExisted }
                if let convoID = scope.convoID, !state.subscriptions.hasAny(of: convoID) {
                    state.follows[convoID] = nil
                    state.dirty.remove(convoID)
                    state.fromLog.remove(convoID)
                    state.gapNotices[convoID] = nil
                    dropped.append(convoID)
                }
                return .success
            }
        }
        for convoID in dropped { context.hub.unroute(convoID, from: self) }
        return (codes, limited)
    }

    /// The subscription a message on `topic` is delivered under (`RelaySubscriptions.matching`).
    static func subscription(for topic: RelayTopic, in state: State) -> RelaySubscription? {
        state.subscriptions.matching(topic)
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
            if isFull(state) {
                state.dirty.insert(convoID)
                return false
            }
            state.follows[convoID] = event.seq
            if let row = event.row, let ciphertext = row.ciphertext,
               let subscription = Self.subscription(for: .groupMessages(convoID: convoID), in: state),
               !(subscription.noLocal && state.published.contains(row.msgID)) {
                var properties = MessageProperties()
                if let notice = state.gapNotices.removeValue(forKey: convoID) {
                    properties.userProperties = [StringPair(Self.outdatedCursor, notice)]
                }
                let message = ApplicationMessage(topic: RelayTopic.groupMessages(convoID: convoID).topicName, payload: ciphertext,
                                                 qos: QoS(rawValue: subscription.qos) ?? .atLeastOnce, properties: properties)
                out.append(Self.hand(message, as: .message(convoID: convoID, eventSeq: event.seq, seq: row.seq), in: &state))
            }
            if event.ends(membershipOf: did.rawValue) {
                Self.endFollow(convoID, in: &state)
                return true
            }
        }
        return false
    }

    /// The conversation is no longer the Session's to read: its group subscriptions end with its follow.
    private static func endFollow(_ convoID: String, in state: inout State) {
        state.subscriptions.removeAll(of: convoID)
        state.follows[convoID] = nil
        state.dirty.remove(convoID)
        state.fromLog.remove(convoID)
        state.groupInfoEpochs[convoID] = nil
        state.gapNotices[convoID] = nil
        state.retainedFlags[.groupInfo(convoID: convoID)] = nil
        state.retainedDue.removeAll { $0 == .groupInfo(convoID: convoID) }
    }

    /// The User Property on the first message after a retention gap (as subscribeConvoEvents'
    /// `OutdatedCursor` info event).
    static let outdatedCursor = "OutdatedCursor"

    // MARK: Catching up (relay workers)

    func scheduleCatchUp(after delay: Double = 0) {
        let schedule = state.withLock { state in
            guard state.link != nil, !state.catchUpScheduled, hasWork(state) else { return false }
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
        case retained(RelayTopic, retainFlag: Bool)
    }

    /// Reads and hands what the Session is behind on, one piece at a time while the client has room,
    /// and at most `RelaySettings.jobsPerTurn` pieces before giving the worker to others.
    private func catchUp() {
        for _ in 0..<RelaySettings.jobsPerTurn {
            let work: Work? = state.withLock { state in
                guard state.link != nil else {
                    state.catchUpScheduled = false
                    return nil
                }
                if !isFull(state) {
                    if state.welcomesDirty {
                        state.welcomesDirty = false
                        return .welcomes
                    }
                    if !state.retainedDue.isEmpty {
                        let topic = state.retainedDue.removeFirst()
                        return .retained(topic, retainFlag: state.retainedFlags.removeValue(forKey: topic) ?? false)
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
                case let .retained(topic, retainFlag): try handRetained(topic, retainFlag: retainFlag)
                case let .convo(convoID, from, fromLog): try catchUp(convoID, from: from, fromLog: fromLog)
                }
            } catch {
                context.log.warning("relay catch-up failed", ["error": String(describing: type(of: error))])
                state.withLock { state in
                    switch work {
                    case .welcomes: state.welcomesDirty = true
                    case let .retained(topic, retainFlag): Self.due(topic, retainFlag: retainFlag, in: &state)
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
        context.workers.submit { [self] in catchUp() }
    }

    private func catchUp(_ convoID: String, from: Int64, fromLog: Bool) throws {
        let source = context.source
        let events = try fromLog ? source.logEvents(convoID: convoID, after: from) : source.events(convoID: convoID, after: from)
        // The log no longer holds what follows the position: retention purged it. A member's follow
        // moves on to what is left, and says so; a DID no longer a member (whose removal may be
        // among what was purged) follows no more.
        let gap = events.first.map { $0.seq > from + 1 } ?? false
        let member = try gap ? context.store.isMember(convoID: convoID, did: did) : true
        let stop = state.withLock { state -> Bool in
            if gap, let first = events.first, state.follows[convoID] == from {
                guard member else {
                    Self.endFollow(convoID, in: &state)
                    return true
                }
                state.follows[convoID] = first.seq - 1
                state.gapNotices[convoID] = "events \(from + 1)…\(first.seq - 1) of this conversation expired before they "
                    + "were delivered; fetch its GroupInfo (relay/g/\(convoID)/i) to rejoin if this client is behind"
            }
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
            for welcome in welcomes where !state.welcomesHanded.contains(welcome.id)
                && !context.welcomeAcks.isPending(welcome.id, clientID: identity.clientID) {
                if isFull(state) {
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

    /// A retained value (MQTT 5.0 §3.3.1.3) read now and handed under the subscription reaching it:
    /// the client's KeyPackages (`relayKeyPackages`: one per cipher suite), the DID's client_ids, the
    /// group's current verified GroupInfo, this last only to a current member, and, for a change,
    /// only when newer than the one the Session has.
    private func handRetained(_ topic: RelayTopic, retainFlag: Bool) throws {
        let payload: [UInt8]?
        var epoch: (convoID: String, epoch: Int64)?
        switch topic {
        case .keyPackages(let clientID):
            let packages = try context.store.relayKeyPackages(of: clientID)
            payload = packages.isEmpty ? nil : CBORArray.encode(byteStrings: packages)
        case .user(let user):
            let clients = try context.store.relayClients(of: user)
            payload = clients.isEmpty ? nil : CBORArray.encode(textStrings: clients)
        case .groupInfo(let convoID):
            guard try context.store.isMember(convoID: convoID, did: did) else { return }
            let convo = try context.store.loadConvo(convoID)
            payload = convo.currentGroupInfo
            epoch = (convoID, convo.epoch)
        case .welcome, .groupMessages, .sync:
            payload = nil
        }
        guard let payload else { return }
        state.withLock { state in
            guard let subscription = Self.subscription(for: topic, in: state), let link = state.link else { return }
            if let epoch {
                let known = state.groupInfoEpochs[epoch.convoID] ?? -1
                guard retainFlag || epoch.epoch > known else { return }
                state.groupInfoEpochs[epoch.convoID] = max(known, epoch.epoch)
            }
            let message = ApplicationMessage(topic: topic.topicName, payload: payload, qos: QoS(rawValue: subscription.qos) ?? .atLeastOnce,
                                             retain: retainFlag)
            link.post([Self.hand(message, as: .retained, in: &state)])
        }
    }

    // MARK: Changes announced on the Relay channel (relay workers)

    func welcomesChanged() {
        state.withLock { $0.welcomesDirty = true }
        scheduleCatchUp()
    }

    /// A retained value changed (a client's KeyPackages, a DID's clients, a conversation's GroupInfo
    /// or epoch): a subscribed Session reads and hands it when it has room (a commit that came
    /// without a GroupInfo leaves nothing to send: the retained value is cleared, never stale).
    func retainedChanged(_ topic: RelayTopic) {
        let due = state.withLock { state -> Bool in
            guard state.link != nil, Self.subscription(for: topic, in: state) != nil else { return false }
            Self.due(topic, retainFlag: false, in: &state)
            return true
        }
        if due { scheduleCatchUp() }
    }

    /// Whether any subscription reaches `topic` (for routing Relay channel announcements).
    func isSubscribed(to topic: RelayTopic) -> Bool {
        state.withLock { Self.subscription(for: topic, in: $0) != nil }
    }
}
