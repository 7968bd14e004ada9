import Basics
import DeliveryStore
import Foundation
import HTTP
import Synchronization

/// One subscribeConvoEvents WebSocket: which conversations it follows and the last event_seq it
/// sent in each. Frames are sent under the lock, strictly in event_seq order per conversation and
/// each at most once: an event goes out only if its seq is the delivered one plus one. Live
/// batches from the hub are sent at once when they continue the stream; anything else (a gap, a
/// subscription still opening) marks the conversation dirty, and a catch-up job on the event
/// workers reads the log from the delivered seq. Nothing is queued in memory but that dirty set.
final class EventSubscription: WebSocketHandler, EventFollower, Sendable {
    enum Scope: Sendable, Equatable {
        case allConvos
        case convo(String)
    }

    private struct State {
        var connection: WebSocketConnection?
        /// Followed conversations → last event_seq sent (or the starting position).
        var delivered: [String: Int64] = [:]
        /// Conversations the caller's membership ended in: their final position, kept in cursors.
        var finished: [String: Int64] = [:]
        var keys: [String: UInt64] = [:]
        var dirty: Set<String> = []
        var catchUpScheduled = false
        var opened = false
        var closed = false
    }

    let did: DID
    let scope: Scope
    /// The resume position from the `cursor` parameter, if any.
    let cursor: EventCursor?
    /// Without a cursor: each log's end when the upgrade was accepted, so the stream starts at the
    /// 101 response, not whenever the opening job runs.
    let initial: [String: Int64]
    /// The device named by the ticket: while open, it is not pushed for what this socket follows.
    let pushDeviceID: String?
    private let service: EventService
    private let state = Mutex(State())

    init(did: DID, scope: Scope, cursor: EventCursor?, initial: [String: Int64], service: EventService,
         pushDeviceID: String? = nil) {
        self.pushDeviceID = pushDeviceID
        self.did = did
        self.scope = scope
        self.cursor = cursor
        self.initial = initial
        self.service = service
    }

    // MARK: WebSocketHandler (I/O thread: no blocking here)

    func didOpen(connection: WebSocketConnection) {
        state.withLock { $0.connection = connection }
        guard service.hub.register(self) else {
            connection.close(code: .policyViolation, reason: "too many subscriptions")
            return
        }
        service.workers.submit { [self] in open() }
    }

    /// The stream takes no messages: anything a client sends is a protocol violation.
    func didReceive(text: String, connection: WebSocketConnection) {
        connection.close(code: .policyViolation, reason: "this stream takes no messages")
    }

    func didReceive(binary: [UInt8], connection: WebSocketConnection) {
        connection.close(code: .policyViolation, reason: "this stream takes no messages")
    }

    func didClose(code: WebSocketCloseCode, connection: WebSocketConnection) {
        state.withLock { $0.closed = true }
        service.hub.unregister(self)
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    var followsJoins: Bool { scope == .allConvos }

    // MARK: Opening (event workers)

    /// Works out where each conversation starts, after the hub routes its notifications here, then
    /// catches up. Positions: the cursor's, or without one the log's end at the upgrade; for a
    /// conversation joined since, just before the caller's joined event. A conversation the caller
    /// has left since is replayed up to its departure event.
    private func open() {
        do {
            var start: [String: Int64] = [:]
            switch scope {
            case .convo(let convoID):
                if let position = initial[convoID] {
                    start[convoID] = position
                } else if try service.store.isMember(convoID: convoID, did: did) {
                    start[convoID] = try cursor?.position(of: convoID) ?? service.store.lastEventSeq(convoID: convoID) ?? 0
                } else if let position = cursor?.position(of: convoID), try departure(convoID) > position {
                    start[convoID] = position
                }
            case .allConvos:
                start = initial
                for convo in try service.store.currentConvos(of: did) where start[convo.convoID] == nil {
                    start[convo.convoID] = try cursor?.position(of: convo.convoID)
                        ?? max(0, (service.store.lastMembershipEventSeq(convoID: convo.convoID, did: did.rawValue,
                                                                         actions: [.joined]) ?? 1) - 1)
                }
                if let cursor, cursor.positions.count > start.count {
                    for convoID in try service.store.formerConvos(of: did) {
                        if let position = cursor.position(of: convoID), try departure(convoID) > position {
                            start[convoID] = position
                        }
                    }
                }
            }
            if start.isEmpty, case .convo = scope {
                close(reason: "not a member")
                return
            }
            for (convoID, seq) in start { follow(convoID, from: seq) }
            service.hub.route(Array(start.keys), to: self)
            // Read each log once more now that notifications reach us: whatever committed before
            // that is caught up from the log, everything after arrives live.
            let dirty = state.withLock { state in
                state.opened = true
                return state.dirty.union(state.delivered.keys)
            }
            state.withLock { $0.dirty = dirty }
            scheduleCatchUp()
        } catch {
            service.log.warning("subscription open failed", ["error": String(describing: type(of: error))])
            state.withLock { $0.connection }?.close(code: .internalError, reason: "try again")
        }
    }

    private func departure(_ convoID: String) throws -> Int64 {
        try service.store.lastMembershipEventSeq(convoID: convoID, did: did.rawValue, actions: [.left, .removed]) ?? 0
    }

    /// Starts following `convoID` after `seq`, unless already followed.
    func follow(_ convoID: String, from seq: Int64) {
        state.withLock { state in
            guard state.delivered[convoID] == nil else { return }
            state.delivered[convoID] = seq
            state.finished[convoID] = nil
            state.keys[convoID] = EventCursor.key(convoID)
            if state.opened { state.dirty.insert(convoID) }
        }
    }

    /// The caller joined `convoID` while subscribed (all-conversations scope only): follow it
    /// from its joined event.
    func joined(_ convoID: String, before seq: Int64) {
        guard scope == .allConvos else { return }
        follow(convoID, from: seq)
        scheduleCatchUp()
    }

    // MARK: Live batches (hub's fan-out thread: no blocking here)

    /// `events` are the conversation's next events as the hub read them (maybe none); `announced`
    /// is the newest event_seq the notification named.
    func offer(_ convoID: String, events: ArraySlice<PreparedEvent>, announced: Int64) {
        var untrack = false
        var behind = false
        state.withLock { state in
            guard !state.closed, let delivered = state.delivered[convoID] else { return }
            guard state.opened, !state.dirty.contains(convoID) else {
                if announced > delivered { state.dirty.insert(convoID) }
                return
            }
            for event in events where event.seq > (state.delivered[convoID] ?? .max) {
                guard event.seq == state.delivered[convoID]! + 1 else { break }
                untrack = !send(event, in: &state) || untrack
                if state.closed || state.delivered[convoID] == nil { break }
            }
            if let now = state.delivered[convoID], announced > now {
                state.dirty.insert(convoID)
                behind = true
            }
        }
        if untrack { service.hub.unroute(convoID, from: self) }
        if behind { scheduleCatchUp() }
    }

    // MARK: Catch-up (event workers)

    private func scheduleCatchUp(after delay: Double = 0) {
        let schedule = state.withLock { state in
            guard !state.closed, state.opened, !state.catchUpScheduled, !state.dirty.isEmpty else { return false }
            state.catchUpScheduled = true
            return true
        }
        guard schedule else { return }
        if delay > 0 {
            service.workers.submit(after: delay) { [self] in catchUp() }
        } else {
            service.workers.submit { [self] in catchUp() }
        }
    }

    private func catchUp() {
        while true {
            let next: (String, Int64, WebSocketConnection)? = state.withLock { state in
                guard !state.closed, let connection = state.connection, let convoID = state.dirty.first else {
                    state.catchUpScheduled = false
                    return nil
                }
                state.dirty.remove(convoID)
                guard let delivered = state.delivered[convoID] else { return ("", 0, connection) }
                return (convoID, delivered, connection)
            }
            guard let (convoID, from, connection) = next else { return }
            if convoID.isEmpty { continue }
            // Let a reader drain before sending more, instead of overflowing its buffer.
            if connection.bufferedAmount > connection.maxBufferedOutput / 2 {
                pause(convoID, delay: 0.05)
                return
            }
            let events: [PreparedEvent]
            do {
                events = try service.source.events(convoID: convoID, after: from)
            } catch {
                service.log.warning("event catch-up failed", ["error": String(describing: type(of: error))])
                pause(convoID, delay: 1)
                return
            }
            var untrack = false
            state.withLock { state in
                guard !state.closed, let delivered = state.delivered[convoID], let first = events.first else { return }
                // The log no longer holds what follows the position: retention purged it.
                if delivered == from, first.seq > from + 1 {
                    let info = PreparedEvent.info("OutdatedCursor", convoID: convoID, message:
                        "events \(from + 1)…\(first.seq - 1) expired; refetch the conversation, then continue from here")
                    state.delivered[convoID] = first.seq - 1
                    guard sendRaw(info, in: &state) else { return }
                }
                for event in events where event.seq > state.delivered[convoID]! {
                    guard event.seq == state.delivered[convoID]! + 1 else {
                        state.dirty.insert(convoID)
                        break
                    }
                    untrack = !send(event, in: &state) || untrack
                    if state.closed || state.delivered[convoID] == nil { return }
                }
                if events.count == service.source.batchSize { state.dirty.insert(convoID) }
            }
            if untrack { service.hub.unroute(convoID, from: self) }
        }
    }

    private func pause(_ convoID: String, delay: Double) {
        state.withLock { state in
            state.dirty.insert(convoID)
            state.catchUpScheduled = false
        }
        scheduleCatchUp(after: delay)
    }

    // MARK: Sending (under the lock)

    /// Sends `event` and advances the position; false when the conversation stops being followed
    /// (the caller's membership ended with this event).
    private func send(_ event: PreparedEvent, in state: inout State) -> Bool {
        state.delivered[event.convoID] = event.seq
        let ends = event.ends(membershipOf: did.rawValue)
        if ends {
            state.delivered[event.convoID] = nil
            state.finished[event.convoID] = event.seq
        }
        guard sendRaw(event.body, in: &state) else { return !ends }
        if ends, case .convo = scope {
            state.closed = true
            state.connection?.close(code: .normalClosure, reason: "no longer a member")
        }
        return !ends
    }

    /// Sends a cursor-less JSON object with the current cursor; marks the subscription closed when
    /// the connection refuses it (closing, or over its buffer limit: then it is closed with 1008).
    private func sendRaw(_ body: String, in state: inout State) -> Bool {
        guard let connection = state.connection else { return false }
        var positions: [(key: UInt64, seq: Int64)] = []
        positions.reserveCapacity(state.delivered.count + state.finished.count)
        for (convoID, seq) in state.delivered { positions.append((state.keys[convoID] ?? EventCursor.key(convoID), seq)) }
        for (convoID, seq) in state.finished { positions.append((state.keys[convoID] ?? EventCursor.key(convoID), seq)) }
        let frame = "{\"cursor\":\"" + EventCursor.encode(positions) + "\"," + body.dropFirst()
        guard connection.send(text: frame) else {
            state.closed = true
            return false
        }
        return true
    }

    private func close(reason: String) {
        let connection = state.withLock { state in
            state.closed = true
            return state.connection
        }
        connection?.close(code: .normalClosure, reason: reason)
    }
}
