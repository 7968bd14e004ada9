import DeliveryStore
import Dispatch
import Foundation
import Synchronization

/// Mirrors this node's live subscriptions that name a device into `push_presence`, so that the
/// outbox's workers on every node leave those devices alone for the conversations they cover
/// (docs/push.md, "Who is pushed"). Changes are written by a thread of its own, in order, a batch
/// at a time: following or leaving never waits for the database. Rows are renewed every
/// `renewInterval` and live three times that, so a node that dies stops counting within a minute.
final class PushPresence: Sendable {
    static let renewInterval: Double = 20
    static var lifetime: Double { renewInterval * 3 }

    private struct State {
        var changes: [DeliveryStore.PresenceChange] = []
        var followers: [ObjectIdentifier: Int64] = [:]
        var nextFollower: Int64 = 1
        var stopped = false
    }

    let node: String
    private let store: DeliveryStore
    private let log: Log
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    init(store: DeliveryStore, node: String, log: Log) {
        self.store = store
        self.node = node
        self.log = log
    }

    func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            defer { finished.signal() }
            run()
        }
        thread.name = "push-presence"
        thread.start()
    }

    func stop() {
        guard started.load(ordering: .relaxed) else { return }
        state.withLock { $0.stopped = true }
        wake.signal()
        _ = finished.wait(timeout: .now() + 5)
    }

    // MARK: What EventHub tells it (any thread; never blocks)

    /// `follower` (of `did#deviceID`) follows `convoIDs` (`*`: every conversation of the DID).
    func covers(_ follower: AnyObject, did: String, deviceID: String, convoIDs: [String]) {
        guard !convoIDs.isEmpty else { return }
        record { state in
            let id = Self.id(of: follower, in: &state)
            return convoIDs.map { .covers(follower: id, did: did, deviceID: deviceID, convoID: $0) }
        }
    }

    func uncovers(_ follower: AnyObject, convoID: String) {
        record { state in
            guard let id = state.followers[ObjectIdentifier(follower)] else { return [] }
            return [.uncovers(follower: id, convoID: convoID)]
        }
    }

    func ends(_ follower: AnyObject) {
        record { state in
            guard let id = state.followers.removeValue(forKey: ObjectIdentifier(follower)) else { return [] }
            return [.ends(follower: id)]
        }
    }

    private static func id(of follower: AnyObject, in state: inout State) -> Int64 {
        if let id = state.followers[ObjectIdentifier(follower)] { return id }
        let id = state.nextFollower
        state.nextFollower += 1
        state.followers[ObjectIdentifier(follower)] = id
        return id
    }

    private func record(_ make: (inout State) -> [DeliveryStore.PresenceChange]) {
        let queued = state.withLock { state -> Bool in
            let changes = make(&state)
            state.changes += changes
            return !changes.isEmpty
        }
        if queued { wake.signal() }
    }

    // MARK: The writer

    private func run() {
        var lastRenewal = Date()
        while true {
            let (changes, stopped) = state.withLock { state in
                defer { state.changes = [] }
                return (state.changes, state.stopped)
            }
            if stopped {
                try? store.clearPresence(node: node)
                return
            }
            if !changes.isEmpty, !write(changes) {
                // Kept, in order, ahead of what came meanwhile: a lost removal would leave a device
                // counted as live (and unpushed) for as long as this node renews its rows.
                state.withLock { $0.changes = changes + $0.changes }
                Thread.sleep(forTimeInterval: 0.5)
                continue
            }
            if Date().timeIntervalSince(lastRenewal) >= Self.renewInterval {
                lastRenewal = Date()
                do { try store.renewPresence(node: node, lifetime: Self.lifetime) } catch {
                    log.warning("push presence renewal failed", ["error": String(describing: error)])
                }
            }
            _ = wake.wait(timeout: .now() + 1)
        }
    }

    private func write(_ changes: [DeliveryStore.PresenceChange]) -> Bool {
        do {
            try store.updatePresence(changes, node: node, lifetime: Self.lifetime)
            return true
        } catch {
            log.warning("push presence update failed", ["error": String(describing: error)])
            return false
        }
    }
}
