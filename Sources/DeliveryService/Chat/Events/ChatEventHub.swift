import ChatProtocol
import DeliveryStore
import Foundation
import Store
import Synchronization

/// The chat event stream's one reader per node (migration 0030, `chat_device_events`): it listens
/// on `chat_events` (and polls each second, in case a notification is lost with a connection),
/// reads every new event once, and hands each device's to that device's subscriptions on this
/// node, which send them in position order or, when they are behind, catch up from the log.
/// Revocations (`chat_revocations`) close the revoked device's subscriptions at once. Typing
/// events (`chat_typing`, `ChatTypingNotice`) go straight to their recipients' subscriptions here,
/// never through the log.
final class ChatEventHub: Sendable {
    private struct State {
        var subscriptions: [String: [ChatSubscription]] = [:]
        /// A device's typing tag (`ChatTypingNotice.tag`) to its key in `subscriptions`.
        var typingTags: [String: String] = [:]
        var head: Int64 = 0
        var running = false
    }

    let store: DeliveryStore
    let workers: EventWorkers
    let log: Log
    /// Told of every subscription that opens and ends (`push_presence`: a device with a stream is
    /// not pushed), and of news (the push outbox may have rows due).
    private let push = Mutex<(presence: PushPresence?, news: (@Sendable () -> Void)?)>((nil, nil))
    /// Subscriptions one device may hold at once on this node.
    let maxPerDevice: Int
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)

    init(store: DeliveryStore, workers: EventWorkers, log: Log, maxPerDevice: Int = 4) {
        self.store = store
        self.workers = workers
        self.log = log
        self.maxPerDevice = maxPerDevice
    }

    static func key(_ did: String, _ device: ChatUUID) -> String { "\(did) \(device)" }

    /// Pushes (docs/push.md): the devices with a stream here are mirrored into `presence` (covering
    /// every conversation), and `news` runs whenever new events were read.
    func mirror(to presence: PushPresence, news: @escaping @Sendable () -> Void) {
        push.withLock { $0 = (presence, news) }
    }

    func start(databaseURL: String) {
        let head = (try? store.chat { try $0.eventHead() }) ?? 0
        state.withLock { $0.head = head; $0.running = true }
        let thread = Thread { [self] in run(databaseURL: databaseURL) }
        thread.name = "chat-events"
        thread.start()
    }

    /// The listening thread sees this within its one-second wait and ends.
    func stop() {
        stopped.store(true, ordering: .releasing)
        state.withLock { $0.running = false }
    }

    /// Adds a subscription; false when its device holds too many here already.
    func register(_ subscription: ChatSubscription) -> Bool {
        let registered = state.withLock { state in
            let key = Self.key(subscription.did, subscription.device)
            guard state.subscriptions[key, default: []].count < maxPerDevice else { return false }
            state.subscriptions[key, default: []].append(subscription)
            state.typingTags[subscription.typingTag] = key
            return true
        }
        if registered {
            push.withLock { $0.presence }?.covers(subscription, did: subscription.did, deviceID: subscription.device.description,
                                                   convoIDs: ["*"])
        }
        return registered
    }

    func unregister(_ subscription: ChatSubscription) {
        state.withLock { state in
            let key = Self.key(subscription.did, subscription.device)
            state.subscriptions[key]?.removeAll { $0 === subscription }
            if state.subscriptions[key]?.isEmpty == true {
                state.subscriptions[key] = nil
                state.typingTags[subscription.typingTag] = nil
            }
        }
        push.withLock { $0.presence }?.ends(subscription)
    }

    var subscriptionCount: Int { state.withLock { $0.subscriptions.values.reduce(0) { $0 + $1.count } } }

    private func run(databaseURL: String) {
        while !stopped.load(ordering: .acquiring) {
            do {
                let listener = try PGListener(url: databaseURL)
                try listener.listen("chat_events")
                try listener.listen("chat_revocations")
                try listener.listen(ChatTypingNotice.channel)
                defer { listener.close() }
                var lastRead = Date.distantPast
                while !stopped.load(ordering: .acquiring) {
                    let notifications = try listener.wait(timeout: 1)
                    for notification in notifications {
                        switch notification.channel {
                        case "chat_revocations": revoked(notification.payload)
                        case ChatTypingNotice.channel: typing(notification.payload)
                        default: break
                        }
                    }
                    // Typing alone changes nothing in the log: a stream of it still lets the poll run each second.
                    if notifications.contains(where: { $0.channel != ChatTypingNotice.channel }) || Date().timeIntervalSince(lastRead) >= 1 {
                        lastRead = Date()
                        try readNewEvents()
                    }
                }
            } catch {
                if stopped.load(ordering: .acquiring) { return }
                log.warning("chat event listener lost its connection; retrying", [:])
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// Every event after the hub's head, handed to the subscriptions here; each subscription then
    /// knows it has seen everything up to the new head. With no subscription here the events are
    /// not read (as v1's hub reads nothing for a conversation no one here follows): the head moves
    /// on, and a subscription that opens later catches up from the log.
    func readNewEvents() throws {
        let from = state.withLock { $0.head }
        let to = try store.chat { try $0.eventHead() }
        guard to > from else { return }
        let skipped = state.withLock { state -> Bool in
            guard state.subscriptions.isEmpty else { return false }
            state.head = to
            return true
        }
        if skipped { return }
        var byDevice: [String: [ChatStoredEvent]] = [:]
        var position = from
        while position < to {
            let rows = try store.chat { try $0.events(after: position, limit: 1000) }
            for row in rows where row.event.position <= to {
                byDevice[Self.key(row.did, row.device), default: []].append(row.event)
            }
            guard let last = rows.last?.event.position, rows.count == 1000, last < to else { break }
            position = last
        }
        let subscriptions = state.withLock { state -> [(String, ChatSubscription)] in
            state.head = to
            return state.subscriptions.flatMap { key, list in list.map { (key, $0) } }
        }
        for (key, subscription) in subscriptions {
            subscription.offer(byDevice[key] ?? [], from: from, to: to)
        }
        push.withLock { $0.news }?()
    }

    /// A typing event: to this node's subscriptions of its recipients, while it lasts.
    func typing(_ payload: String) {
        guard let notice = ChatTypingNotice(payload: payload), notice.event.expiresAt > CanonicalTimestamp(Date()) else { return }
        let subscriptions = state.withLock { state in
            notice.recipients.flatMap { tag in state.typingTags[tag].flatMap { state.subscriptions[$0] } ?? [] }
        }
        guard !subscriptions.isEmpty else { return }
        let frame = notice.event.frame
        for subscription in subscriptions { subscription.sendTyping(frame) }
    }

    private func revoked(_ payload: String) {
        let subscriptions = state.withLock { $0.subscriptions[payload] ?? [] }
        for subscription in subscriptions { subscription.close(reason: "device revoked") }
    }
}
