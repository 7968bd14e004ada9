import Basics
import DeliveryStore
import Foundation
import MQTT
import MQTTServer
import Synchronization

/// What every Relay Session and connection shares: the store and methods' environment, the event
/// log's reader and hub, the relay workers, this node's name.
struct RelayContext: Sendable {
    let env: MethodEnvironment
    let source: EventSource
    let hub: EventHub
    let workers: EventWorkers
    let node: String
    /// Welcomes and GroupInfos published ahead of their commit.
    let pending: RelayPending
    let welcomeAcks = RelayWelcomeAcks()
    let settings: RelaySettings
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?
    var log: Log { env.log }
    var store: DeliveryStore { env.store }
}

/// One client_id's MQTT Session (MQTT 5.0 §4.1) on this node: its subscriptions, where it is in each
/// followed conversation's log, and every message handed to the client and not acknowledged yet. It
/// outlives connections: a reconnect with Clean Start = 0 finds it (here, or in `mqtt_sessions` on any
/// node) and gets exactly what it missed, in order.
///
/// Messages reach it from the hub (`offer`, the fan-out thread) and from catch-up reads (relay
/// workers); both hand them to the attached connection under the Session's lock, so the order is the
/// log's. A Session hands at most `maxUnackedMessages` QoS 1 messages (`maxUnackedBytes` of payload)
/// the client has not acknowledged: beyond, the conversation is marked behind and read again from the
/// log once acknowledgements come. Retained values wait their turn in the same way.
final class RelaySession: EventFollower, Sendable {
    /// msgIds of the client's own recent publishes, for No Local (MQTT 5.0 §3.8.3.1).
    static let publishedMemory = 4096

    struct Outstanding: Sendable {
        var ref: RelayDeliveryRef
        var message: ApplicationMessage
        var packetIdentifier: UInt16?
        var order: UInt64
    }

    struct State {
        var connection: ObjectIdentifier?
        /// The attached connection's link, once its CONNACK is on its way (`activate`).
        var link: MQTTLink?
        var pendingLink: MQTTLink?
        var subscriptions = RelaySubscriptions()
        var follows: [String: Int64] = [:]
        var dirty: Set<String> = []
        var welcomesDirty = false
        var catchUpScheduled = false
        var groupInfoEpochs: [String: Int64] = [:]
        var outstanding: [UInt64: Outstanding] = [:]
        /// Payload bytes of the QoS 1 messages in `outstanding`.
        var outstandingBytes = 0
        /// Retained values to hand once there is room, oldest first, each topic once; the RETAIN
        /// flag they go with (set for a new subscription's, clear for a change announced later).
        var retainedDue: [RelayTopic] = []
        var retainedFlags: [RelayTopic: Bool] = [:]
        /// Conversations whose log lost events past the position (retention): the text of the
        /// `OutdatedCursor` User Property the next message handed from each carries.
        var gapNotices: [String: String] = [:]
        var nextMessageID: UInt64 = 1
        var published: Set<String> = []
        var publishedOrder: [String] = []
        var welcomesHanded: Set<Int64> = []
        /// Sync barriers' nonces not answered yet, oldest first (docs/mqtt.md, "Sync").
        var barriers: [[UInt8]] = []
        /// Followed conversations a barrier wants read from the log itself, not the cache (each
        /// also in `dirty`).
        var fromLog: Set<String> = []
        /// Seconds the Session outlives its connection (CONNECT's, or DISCONNECT's).
        var expiryInterval: UInt32 = 0
        var ended = false
    }

    let identity: RelayIdentity
    let context: RelayContext
    let state = Mutex(State())

    var did: DID { identity.did }
    var followsJoins: Bool { false }

    init(identity: RelayIdentity, context: RelayContext) {
        self.identity = identity
        self.context = context
    }

    // MARK: Connections

    /// Attaches `connection` (the previous one, if any, is told 0x8E Session taken over) and returns
    /// the events that open it: CONNACK with the Session's unacknowledged in-flight messages to resend
    /// (MQTT 5.0 §4.4), then the messages handed before and never sent.
    func attach(_ connection: ObjectIdentifier, link: MQTTLink, sessionPresent: Bool, expiryInterval: UInt32) -> [MQTTServerEvent] {
        let (previous, events) = state.withLock { state -> (MQTTLink?, [MQTTServerEvent]) in
            let previous = state.connection != connection ? (state.link ?? state.pendingLink) : nil
            state.connection = connection
            state.link = nil
            state.pendingLink = link
            state.expiryInterval = expiryInterval
            state.ended = false
            // Barriers were asked on another connection: its client is gone.
            state.barriers = []
            let ordered = state.outstanding.sorted { $0.value.order < $1.value.order }
            let inflight = ordered.compactMap { id, entry in
                entry.packetIdentifier.map { InflightMessage(packetIdentifier: $0, outbound: OutboundMessage(id: id, message: entry.message)) }
            }
            var events: [MQTTServerEvent] = [.authenticated(.accepted(SessionGrant(sessionPresent: sessionPresent, inflight: inflight)))]
            for (id, entry) in ordered where entry.packetIdentifier == nil {
                events.append(.deliver(OutboundMessage(id: id, message: entry.message)))
            }
            // Everything followed is read again from its position: what arrived while detached, of
            // which the shared cache may hold only a prefix and no announcement was kept.
            state.dirty.formUnion(state.follows.keys)
            state.fromLog.formUnion(state.follows.keys)
            state.welcomesDirty = state.subscriptions.matching(.welcome(clientID: identity.clientID)) != nil
            return (previous, events)
        }
        previous?.post(.disconnect(reasonCode: .sessionTakenOver, reasonString: "another connection took this Session over"))
        return events
    }

    /// The CONNACK of `connection` was posted: deliveries may follow it now (live from the hub, and
    /// whatever the log holds past each position).
    func activate(_ connection: ObjectIdentifier) {
        let follows = state.withLock { state -> [String]? in
            guard state.connection == connection, let link = state.pendingLink else { return nil }
            state.link = link
            state.pendingLink = nil
            return Array(state.follows.keys)
        }
        guard let follows else { return }
        _ = context.hub.register(follower: self, counted: false)
        context.hub.route(follows, to: self)
        scheduleCatchUp()
    }

    /// Detaches `connection` if it is the attached one; returns the state to keep and for how long
    /// (nil: it was not attached, or already detached).
    func detach(_ connection: ObjectIdentifier, expiryInterval: UInt32?) -> (state: RelaySessionState, expiry: UInt32)? {
        let detached = state.withLock { state -> (RelaySessionState, UInt32)? in
            guard state.connection == connection else { return nil }
            state.connection = nil
            state.link = nil
            state.pendingLink = nil
            if let expiryInterval { state.expiryInterval = expiryInterval }
            state.catchUpScheduled = false
            state.barriers = []
            return (Self.snapshot(state), state.expiryInterval)
        }
        if detached != nil { context.hub.unregister(follower: self, counted: false) }
        return detached
    }

    var isAttached: Bool { state.withLock { $0.connection != nil } }

    func isAttached(to connection: ObjectIdentifier) -> Bool { state.withLock { $0.connection == connection } }

    /// The Session ends (expiry, Clean Start): forget everything.
    func end() {
        let link = state.withLock { state -> MQTTLink? in
            state.ended = true
            let link = state.link ?? state.pendingLink
            state.connection = nil
            state.link = nil
            state.pendingLink = nil
            return link
        }
        link?.post(.disconnect(reasonCode: .sessionTakenOver, reasonString: "another connection took this Session over"))
        context.hub.unregister(follower: self, counted: false)
    }

    // MARK: Persistence

    static func snapshot(_ state: State) -> RelaySessionState {
        var stored = RelaySessionState()
        stored.subscriptions = state.subscriptions.all
        stored.positions = state.follows
        stored.groupInfoEpochs = state.groupInfoEpochs
        stored.unacknowledged = state.outstanding.values.sorted { $0.order < $1.order }.compactMap { entry in
            switch entry.ref {
            case .retained, .sync: return nil
            case .message, .welcome: break
            }
            return RelaySessionState.Unacknowledged(ref: entry.ref, packetIdentifier: entry.packetIdentifier,
                                                    qos: entry.message.qos.rawValue)
        }
        return stored
    }

    /// Takes a stored state (a Session resumed from `mqtt_sessions`), rebuilding its unacknowledged
    /// messages from the store (one purged since is dropped) and authorizing its subscriptions again:
    /// of a conversation the DID no longer belongs to, only what carries its follow on to the commit
    /// that removed it stays (that follow ends there). Runs on a relay worker.
    func restore(_ stored: RelaySessionState) throws {
        let convoIDs = Set(stored.subscriptions.compactMap { $0.scope?.convoID })
        let memberships = try context.store.relayMemberships(of: did, among: convoIDs.sorted())
        var rebuilt: [(RelaySessionState.Unacknowledged, ApplicationMessage)] = []
        for entry in stored.unacknowledged {
            let qos = QoS(rawValue: min(entry.qos, 1)) ?? .atLeastOnce
            switch entry.ref {
            case let .message(convoID, _, seq):
                guard let row = try context.store.messages(convoID: convoID, MessageQuery(sinceSeq: seq - 1, limit: 1)).messages.first,
                      row.seq == seq, let ciphertext = row.ciphertext else { continue }
                rebuilt.append((entry, ApplicationMessage(topic: RelayTopic.groupMessages(convoID: convoID).topicName, payload: ciphertext, qos: qos)))
            case let .welcome(id):
                guard let welcome = try context.store.relayWelcome(id) else { continue }
                rebuilt.append((entry, ApplicationMessage(topic: RelayTopic.welcome(clientID: identity.clientID).topicName,
                                                          payload: welcome.welcome, qos: qos)))
            case .retained, .sync:
                continue
            }
        }
        state.withLock { state in
            for subscription in stored.subscriptions {
                guard let scope = subscription.scope else { continue }
                if let convoID = scope.convoID, !memberships.contains(convoID) {
                    guard stored.positions[convoID] != nil, scope != .topic(.groupInfo(convoID: convoID)) else { continue }
                }
                state.subscriptions.insert(subscription, scope: scope)
            }
            state.follows = stored.positions.filter { state.subscriptions.hasAny(of: $0.key) }
            state.groupInfoEpochs = stored.groupInfoEpochs
            for (entry, message) in rebuilt {
                let id = state.nextMessageID
                state.nextMessageID += 1
                state.outstanding[id] = Outstanding(ref: entry.ref, message: message, packetIdentifier: entry.packetIdentifier, order: id)
                if message.qos != .atMostOnce { state.outstandingBytes += message.payload.count }
                if case .welcome(let welcomeID) = entry.ref { state.welcomesHanded.insert(welcomeID) }
            }
        }
    }

    // MARK: Flow (the attached connection's I/O thread)

    func delivered(_ messageID: UInt64, packetIdentifier: UInt16, by connection: ObjectIdentifier) {
        state.withLock { state in
            guard state.connection == connection else { return }
            state.outstanding[messageID]?.packetIdentifier = packetIdentifier
        }
    }

    /// The client acknowledged (or the connection discarded for good) a message.
    func finished(_ messageID: UInt64, by connection: ObjectIdentifier) {
        let (welcome, resume) = state.withLock { state -> (Int64?, Bool) in
            guard state.connection == connection, let entry = state.outstanding.removeValue(forKey: messageID) else { return (nil, false) }
            state.outstandingBytes -= entry.message.payload.count
            var welcome: Int64?
            if case .welcome(let id) = entry.ref {
                welcome = id
                state.welcomesHanded.remove(id)
            }
            // At half or below, not only on the way through half: a Session that fell behind while
            // already below it resumes too (scheduleCatchUp does nothing when one is scheduled).
            return (welcome, hasWork(state) && isHalfEmpty(state))
        }
        if let welcome {
            let (store, acks, log) = (context.store, context.welcomeAcks, context.log)
            let clientID = identity.clientID
            acks.begin(welcome, clientID: clientID)
            context.workers.submit {
                do { try store.acknowledgeRelayWelcome(welcome, clientID: clientID) } catch {
                    log.warning("relay welcome acknowledgement failed", ["error": String(describing: type(of: error))])
                }
                acks.end(welcome, clientID: clientID)
            }
        }
        if resume { scheduleCatchUp() }
    }

    /// A message the connection will not send. Too large for the client, or expired: as if
    /// delivered (MQTT 5.0 §3.1.2.11.4). Not connected: it stays, to be sent on the next connection.
    func discarded(_ messageID: UInt64, reason: DiscardReason, by connection: ObjectIdentifier) {
        switch reason {
        case .notConnected:
            break
        case .packetTooLarge, .expired, .queueFull:
            finished(messageID, by: connection)
        }
    }

    /// Remembers a msgId the client published, for its No Local subscriptions.
    func notePublished(_ msgID: String) {
        state.withLock { state in
            guard state.published.insert(msgID).inserted else { return }
            state.publishedOrder.append(msgID)
            if state.publishedOrder.count > Self.publishedMemory {
                for old in state.publishedOrder.prefix(Self.publishedMemory / 2) { state.published.remove(old) }
                state.publishedOrder.removeFirst(Self.publishedMemory / 2)
            }
        }
    }

    /// Hands `message` to the attached connection as `ref`: the event to post.
    static func hand(_ message: ApplicationMessage, as ref: RelayDeliveryRef, in state: inout State) -> MQTTServerEvent {
        let id = state.nextMessageID
        state.nextMessageID += 1
        if message.qos != .atMostOnce {
            state.outstanding[id] = Outstanding(ref: ref, message: message, packetIdentifier: nil, order: id)
            state.outstandingBytes += message.payload.count
        }
        return .deliver(OutboundMessage(id: id, message: message))
    }

    /// The client holds as many unacknowledged messages, or bytes, as it may: nothing more is handed.
    func isFull(_ state: State) -> Bool {
        state.outstanding.count >= context.settings.maxUnackedMessages || state.outstandingBytes >= context.settings.maxUnackedBytes
    }

    private func isHalfEmpty(_ state: State) -> Bool {
        state.outstanding.count <= context.settings.maxUnackedMessages / 2 && state.outstandingBytes <= context.settings.maxUnackedBytes / 2
    }

    /// Something waits to be read or handed: a conversation behind, Welcomes, retained values, barriers.
    func hasWork(_ state: State) -> Bool {
        !state.dirty.isEmpty || state.welcomesDirty || !state.retainedDue.isEmpty || !state.barriers.isEmpty
    }
}
