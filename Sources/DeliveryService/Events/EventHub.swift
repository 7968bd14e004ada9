import Basics
import DeliveryStore
import Foundation
import Store
import Synchronization

/// The process's one view of the event channel: a `PGListener` on `convo_events` (payload
/// `<convo_id> <event_seq>`, sent by whichever node committed the change), and the local
/// subscriptions by conversation. For each notification the fan-out thread reads the new events of
/// that conversation once, from the last seq it read (a process-wide position), and offers them
/// to every local subscription that follows it. Offers never block: a subscription sends at once
/// or marks itself behind and catches up from the log on the event workers.
///
/// Followers are subscribeConvoEvents sockets (`EventSubscription`, counted against the per-user
/// limit) and MQTT Sessions following group topics (`RelaySession`). The same listener connection
/// also hears the Relay channel, handed to `onRelayNotification`.
final class EventHub: Sendable {
    private struct State {
        var subscriptions: [ObjectIdentifier: any EventFollower] = [:]
        var byConvo: [String: Set<ObjectIdentifier>] = [:]
        /// All-conversations subscriptions by DID, to follow conversations joined while open.
        var allConvosByDID: [String: Set<ObjectIdentifier>] = [:]
        var socketsByDID: [DID: Int] = [:]
        /// The newest event_seq read per followed conversation.
        var lastRead: [String: Int64] = [:]
        /// Conversations with news → newest announced seq (`resync`: read until the end).
        var pending: [String: Int64] = [:]
        var order: [String] = []
        var stopped = false
    }

    static let resync: Int64 = -1

    let maxSocketsPerUser: Int
    private let source: EventSource
    private let log: Log
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let threadCount = Atomic<Int>(0)
    private let onIdle: @Sendable () -> Void
    /// Payloads of the Relay channel (`relayChannel`), on the listener thread.
    private let relayHandler = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Told of every notification of the event channel (the push dispatcher: something may be due).
    private let newsHandler = Mutex<(@Sendable () -> Void)?>(nil)
    /// Where followers that name a device are mirrored (push presence), when push runs.
    private let presence = Mutex<PushPresence?>(nil)
    static let relayChannel = "relay_events"
    /// The listener connection's opens, losses and reconnects, across the listeners that follow
    /// one another (`/metrics`).
    let listenerConnections = ConnectionCounters()

    /// - Parameter onIdle: run on the fan-out thread about once a minute (expired-ticket cleanup).
    init(source: EventSource, maxSocketsPerUser: Int, log: Log, onIdle: @escaping @Sendable () -> Void = {}) {
        self.source = source
        self.maxSocketsPerUser = maxSocketsPerUser
        self.log = log
        self.onIdle = onIdle
    }

    // MARK: Subscriptions

    func socketCount(of did: DID) -> Int { state.withLock { $0.socketsByDID[did] ?? 0 } }

    /// Conversations announced and not yet read by the fan-out thread (`/metrics`: a node falling behind).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Adds an open subscription; false when its DID is at the per-user socket limit.
    func register(_ subscription: EventSubscription) -> Bool {
        register(follower: subscription, counted: true)
    }

    /// Adds a follower; a `counted` one (a socket) only while its DID is under the per-user limit.
    func register(follower: any EventFollower, counted: Bool) -> Bool {
        state.withLock { state in
            let count = state.socketsByDID[follower.did] ?? 0
            guard !counted || count < maxSocketsPerUser, !state.stopped else { return false }
            let id = ObjectIdentifier(follower)
            guard state.subscriptions[id] == nil else { return true }
            if counted { state.socketsByDID[follower.did] = count + 1 }
            state.subscriptions[id] = follower
            if follower.followsJoins {
                state.allConvosByDID[follower.did.rawValue, default: []].insert(id)
                if let device = follower.pushDeviceID {
                    devicePresence?.covers(follower, did: follower.did.rawValue, deviceID: device, convoIDs: ["*"])
                }
            }
            return true
        }
    }

    func unregister(_ subscription: EventSubscription) {
        unregister(follower: subscription, counted: true)
    }

    func unregister(follower subscription: any EventFollower, counted: Bool) {
        let id = ObjectIdentifier(subscription)
        state.withLock { state in
            guard state.subscriptions.removeValue(forKey: id) != nil else { return }
            if subscription.pushDeviceID != nil { devicePresence?.ends(subscription) }
            let count = (state.socketsByDID[subscription.did] ?? 1) - 1
            if counted { state.socketsByDID[subscription.did] = count > 0 ? count : nil }
            if var set = state.allConvosByDID[subscription.did.rawValue] {
                set.remove(id)
                state.allConvosByDID[subscription.did.rawValue] = set.isEmpty ? nil : set
            }
            for convoID in Array(state.byConvo.keys) where state.byConvo[convoID]?.contains(id) == true {
                Self.remove(id, from: convoID, in: &state)
            }
        }
    }

    /// Sends the conversations' notifications to `subscription` from now on.
    func route(_ convoIDs: [String], to subscription: any EventFollower) {
        let id = ObjectIdentifier(subscription)
        state.withLock { state in
            guard state.subscriptions[id] != nil else { return }
            for convoID in convoIDs { state.byConvo[convoID, default: []].insert(id) }
            // A follower of all its DID's conversations is present for all of them already ('*').
            if let device = subscription.pushDeviceID, !subscription.followsJoins {
                devicePresence?.covers(subscription, did: subscription.did.rawValue, deviceID: device, convoIDs: convoIDs)
            }
        }
    }

    func unroute(_ convoID: String, from subscription: any EventFollower) {
        state.withLock { state in
            Self.remove(ObjectIdentifier(subscription), from: convoID, in: &state)
            if subscription.pushDeviceID != nil, !subscription.followsJoins { devicePresence?.uncovers(subscription, convoID: convoID) }
        }
    }

    private static func remove(_ id: ObjectIdentifier, from convoID: String, in state: inout State) {
        guard var set = state.byConvo[convoID] else { return }
        set.remove(id)
        if set.isEmpty {
            state.byConvo[convoID] = nil
            state.lastRead[convoID] = nil
        } else {
            state.byConvo[convoID] = set
        }
    }

    /// Where Relay channel payloads go ("*" after a reconnect: anything may have been missed).
    func onRelayNotification(_ handler: @escaping @Sendable (String) -> Void) {
        relayHandler.withLock { $0 = handler }
    }

    /// Called on the listener thread for every notification of the event channel; must not block.
    func onNews(_ handler: @escaping @Sendable () -> Void) {
        newsHandler.withLock { $0 = handler }
    }

    /// Followers that name a device are mirrored to `presence` from now on.
    func mirrorPresence(to presence: PushPresence) {
        self.presence.withLock { $0 = presence }
    }

    private var devicePresence: PushPresence? { presence.withLock { $0 } }

    // MARK: Threads

    /// Starts the listener and fan-out threads; returns once the listener is listening (or after
    /// `timeout` seconds, then it keeps trying in the background).
    func start(databaseURL: String, channel: String, timeout: Double = 5) {
        let listening = DispatchSemaphore(value: 0)
        let listener = Thread { [self] in
            defer { finished.signal() }
            listen(url: databaseURL, channel: channel, ready: listening)
        }
        listener.name = "events-listen"
        let fanOut = Thread { [self] in
            defer { finished.signal() }
            fanOutLoop()
        }
        fanOut.name = "events-fanout"
        threadCount.store(2, ordering: .relaxed)
        listener.start()
        fanOut.start()
        _ = listening.wait(timeout: .now() + timeout)
    }

    func stop(timeout: Double = 5) {
        state.withLock { $0.stopped = true }
        wake.signal()
        for _ in 0..<threadCount.exchange(0, ordering: .relaxed) { _ = finished.wait(timeout: .now() + timeout) }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func listen(url: String, channel: String, ready: DispatchSemaphore) {
        var signalled = false
        var failures = 0
        while !stopped {
            do {
                let listener = try PGListener(url: url, connectTimeout: DatabaseSettings.connectTimeout,
                                              counters: listenerConnections)
                defer { listener.close() }
                try listener.listen(channel)
                try listener.listen(Self.relayChannel)
                if !signalled {
                    ready.signal()
                    signalled = true
                }
                // Notifications sent while no connection listened are lost: re-read every followed log.
                if failures > 0 {
                    announceAll()
                    relayHandler.withLock { $0 }?("*")
                }
                failures = 0
                while !stopped {
                    for notification in try listener.wait(timeout: 0.5) {
                        if notification.channel == Self.relayChannel {
                            relayHandler.withLock { $0 }?(notification.payload)
                        } else {
                            announce(notification.payload)
                            newsHandler.withLock { $0 }?()
                        }
                    }
                }
            } catch {
                failures += 1
                if failures == 1 { log.warning("event listener disconnected", ["error": String(describing: error)]) }
                Thread.sleep(forTimeInterval: min(2, 0.1 * Double(failures)))
            }
        }
    }

    /// Queues a notification payload `<convo_id> <event_seq>`; malformed ones are ignored.
    func announce(_ payload: String) {
        let parts = payload.split(separator: " ")
        guard parts.count == 2, let seq = Int64(parts[1]) else { return }
        source.cache.heard(convoID: String(parts[0]), seq: seq)
        enqueue(String(parts[0]), seq)
    }

    private func announceAll() {
        let convos = state.withLock { Array($0.byConvo.keys) }
        for convoID in convos { enqueue(convoID, Self.resync) }
    }

    private func enqueue(_ convoID: String, _ seq: Int64) {
        let isNew = state.withLock { state in
            if let current = state.pending[convoID] {
                state.pending[convoID] = current == Self.resync || seq == Self.resync ? Self.resync : max(current, seq)
                return false
            }
            state.pending[convoID] = seq
            state.order.append(convoID)
            return true
        }
        if isNew { wake.signal() }
    }

    private func fanOutLoop() {
        var lastIdle = Date()
        while !stopped {
            let next: (String, Int64)? = state.withLock { state in
                guard !state.order.isEmpty else { return nil }
                let convoID = state.order.removeFirst()
                guard let seq = state.pending.removeValue(forKey: convoID) else { return nil }
                return (convoID, seq)
            }
            if let (convoID, seq) = next {
                process(convoID, announced: seq)
            } else {
                _ = wake.wait(timeout: .now() + 1)
            }
            if Date().timeIntervalSince(lastIdle) >= 60 {
                lastIdle = Date()
                onIdle()
            }
        }
    }

    /// One notification: read the conversation's new events once and offer them to its followers;
    /// pick up conversations that local all-conversations subscribers just joined.
    private func process(_ convoID: String, announced: Int64) {
        let (followers, lastRead, watchers) = state.withLock { state in
            let followers = (state.byConvo[convoID] ?? []).compactMap { state.subscriptions[$0] }
            return (followers, state.lastRead[convoID], state.allConvosByDID.isEmpty ? [] : Array(state.allConvosByDID.keys))
        }
        guard !followers.isEmpty || !watchers.isEmpty else { return }
        do {
            guard let from = lastRead, !followers.isEmpty else {
                // First news of this conversation here: no shared position yet. Followers catch up
                // from their own positions; from here on the hub reads for them.
                try adoptJoins(convoID, dids: watchers, announced: announced)
                guard !followers.isEmpty else { return }
                let position = announced == Self.resync ? (try source.store.lastEventSeq(convoID: convoID) ?? 0) : announced
                state.withLock { state in
                    if state.byConvo[convoID] != nil { state.lastRead[convoID] = max(state.lastRead[convoID] ?? 0, position) }
                }
                for subscription in followers { subscription.offer(convoID, events: [], announced: position) }
                return
            }
            var events: [PreparedEvent] = []
            var position = from
            // Up to the announced seq (a resync: until the log has no more); a batch shorter than
            // `batchSize` may be the end of the cache, not of the log.
            while announced == Self.resync || position < announced {
                let batch = try source.events(convoID: convoID, after: position)
                events += batch
                position = batch.last?.seq ?? position
                if batch.isEmpty { break }
            }
            state.withLock { state in
                if state.byConvo[convoID] != nil { state.lastRead[convoID] = max(state.lastRead[convoID] ?? 0, position) }
            }
            let joins = events.filter { $0.membership?.action == .joined && watchers.contains($0.membership!.did) }
            for event in joins { adopt(convoID, did: event.membership!.did, before: event.seq) }
            let slice = events[...]
            for subscription in followers { subscription.offer(convoID, events: slice, announced: max(position, announced)) }
        } catch {
            log.warning("event fan-out read failed", ["error": String(describing: type(of: error))])
            // Try again shortly; followers catch up from the log when news arrives.
            Thread.sleep(forTimeInterval: 0.1)
            enqueue(convoID, Self.resync)
        }
    }

    /// Local all-conversations subscribers among `dids` that are members now follow the
    /// conversation from their joined event.
    private func adoptJoins(_ convoID: String, dids: [String], announced: Int64) throws {
        guard !dids.isEmpty else { return }
        for did in try source.store.currentMembers(convoID: convoID, among: dids) {
            let joined = try source.store.lastMembershipEventSeq(convoID: convoID, did: did, actions: [.joined])
            adopt(convoID, did: did, before: joined ?? max(1, announced))
        }
    }

    private func adopt(_ convoID: String, did: String, before seq: Int64) {
        let subscriptions = state.withLock { state in
            (state.allConvosByDID[did] ?? []).filter { state.byConvo[convoID]?.contains($0) != true }
                .compactMap { state.subscriptions[$0] }
        }
        for subscription in subscriptions {
            subscription.joined(convoID, before: seq - 1)
            route([convoID], to: subscription)
        }
    }
}
