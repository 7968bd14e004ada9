import ChatProtocol
import DeliveryStore
import Foundation
import HTTP
import Synchronization

/// One `blue.catbird.chat.subscribeEvents` WebSocket (CHAT.md §3): one device's events, each a
/// binary message of two DAG-CBOR maps, the header `{op: 1, t: "blue.catbird.chat.defs#eventEnvelope"}`
/// and the `#eventEnvelope`, whose `previousCursor` is the cursor sent before it (the ticket's for
/// the first). `syncedThrough` is the global position up to which every event of the device was
/// sent: a live batch from the hub is sent at once when it starts at or before it; otherwise the
/// subscription catches up from the log on the event workers. Nothing is queued in memory. Typing
/// events come as their own frames (`sendTyping`), between envelopes, without a cursor.
final class ChatSubscription: WebSocketHandler, Sendable {
    private struct State {
        var connection: WebSocketConnection?
        var syncedThrough: Int64
        var previousCursor: String
        var dirty = true
        var catchUpScheduled = false
        var closed = false
    }

    let did: String
    let device: ChatUUID
    /// The device's tag in typing notices (`ChatTypingNotice.tag`).
    let typingTag: String
    private let hub: ChatEventHub
    private let state: Mutex<State>

    static let header = DAGCBOR.encode(.map(["op": .unsigned(1), "t": .text(ChatSchema.typePrefix + "eventEnvelope")]))

    init(did: String, device: ChatUUID, position: Int64, hub: ChatEventHub) {
        self.did = did
        self.device = device
        typingTag = ChatTypingNotice.tag(did: did, device: device)
        self.hub = hub
        state = Mutex(State(syncedThrough: position, previousCursor: ChatCursor.text(position)))
    }

    // MARK: WebSocketHandler (I/O thread)

    func didOpen(connection: WebSocketConnection) {
        state.withLock { $0.connection = connection }
        guard hub.register(self) else {
            connection.close(code: .policyViolation, reason: "too many subscriptions for this device")
            return
        }
        scheduleCatchUp()
    }

    /// The stream takes no messages.
    func didReceive(text: String, connection: WebSocketConnection) {
        connection.close(code: .policyViolation, reason: "this stream takes no messages")
    }

    func didReceive(binary: [UInt8], connection: WebSocketConnection) {
        connection.close(code: .policyViolation, reason: "this stream takes no messages")
    }

    func didClose(code: WebSocketCloseCode, connection: WebSocketConnection) {
        state.withLock { $0.closed = true }
        hub.unregister(self)
    }

    func close(reason: String) {
        state.withLock { $0.connection }?.close(code: .policyViolation, reason: reason)
    }

    // MARK: Live (the hub's thread)

    /// The device's events in (`from`, `to`], as the hub read them.
    func offer(_ events: [ChatStoredEvent], from: Int64, to: Int64) {
        let behind = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard !state.dirty, state.syncedThrough >= from else {
                state.dirty = true
                return true
            }
            for event in events where event.position > state.syncedThrough {
                send(event, in: &state)
            }
            state.syncedThrough = max(state.syncedThrough, to)
            return false
        }
        if behind { scheduleCatchUp() }
    }

    /// A typing event's frame (`ChatTypingEvent.frame`): sent as it is, outside the cursor chain.
    func sendTyping(_ frame: [UInt8]) {
        state.withLock { state in
            guard !state.closed, let connection = state.connection else { return }
            if !connection.send(binary: frame) { state.closed = true }
        }
    }

    // MARK: Catch-up (event workers)

    private func scheduleCatchUp() {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed, state.dirty, !state.catchUpScheduled else { return false }
            state.catchUpScheduled = true
            return true
        }
        if schedule { hub.workers.submit { [self] in catchUp() } }
    }

    private func catchUp() {
        do {
            while true {
                let start = state.withLock { state -> Int64? in
                    guard !state.closed else { return nil }
                    state.dirty = false
                    return state.syncedThrough
                }
                guard let start else { return }
                let (head, horizon) = try hub.store.chat { (try $0.eventHead(), try $0.eventHorizon()) }
                // Events it has not sent were purged (retention): it cannot go on without a gap.
                guard start >= horizon else { return close(reason: "CursorExpired: page the inventory again") }
                var position = start
                var done = false
                while !done {
                    let events = try hub.store.chat { try $0.deviceEvents(did: did, device: device, after: position, limit: 200) }
                        .filter { $0.position <= head }
                    state.withLock { state in
                        for event in events where event.position > state.syncedThrough { send(event, in: &state) }
                    }
                    position = events.last?.position ?? head
                    done = events.count < 200
                }
                let again = state.withLock { state -> Bool in
                    state.syncedThrough = max(state.syncedThrough, head)
                    if state.dirty { return true }
                    state.catchUpScheduled = false
                    return false
                }
                if !again { return }
            }
        } catch {
            hub.log.warning("chat subscription catch-up failed", [:])
            let connection = state.withLock { state -> WebSocketConnection? in
                state.catchUpScheduled = false
                return state.connection
            }
            connection?.close(code: .internalError, reason: "try again")
        }
    }

    /// One envelope, chained to the previous one.
    private func send(_ event: ChatStoredEvent, in state: inout State) {
        guard let connection = state.connection, let payload = try? DAGCBOR.decode(event.payload) else { return }
        let cursor = ChatCursor.text(event.position)
        let envelope = DAGCBORValue.map([
            "previousCursor": .text(state.previousCursor), "cursor": .text(cursor), "payload": payload,
            "createdAt": .text(CanonicalTimestamp(event.createdAt).description),
        ])
        if connection.send(binary: Self.header + DAGCBOR.encode(envelope)) {
            state.previousCursor = cursor
            state.syncedThrough = event.position
        } else {
            state.closed = true
        }
    }
}
