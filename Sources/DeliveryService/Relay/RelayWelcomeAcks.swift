import Synchronization

/// Welcomes a client acknowledged whose acknowledgement is not stored yet (a relay worker writes it
/// to `mqtt_welcome_acks`): a catch-up on this node, of the same Session or of a new one after a
/// quick reconnect, skips them rather than deliver them again.
final class RelayWelcomeAcks: Sendable {
    private let pending = Mutex<[String: Set<Int64>]>([:])

    func begin(_ welcomeID: Int64, clientID: String) {
        pending.withLock { _ = $0[clientID, default: []].insert(welcomeID) }
    }

    func end(_ welcomeID: Int64, clientID: String) {
        pending.withLock { pending in
            pending[clientID]?.remove(welcomeID)
            if pending[clientID]?.isEmpty == true { pending[clientID] = nil }
        }
    }

    func isPending(_ welcomeID: Int64, clientID: String) -> Bool {
        pending.withLock { $0[clientID]?.contains(welcomeID) ?? false }
    }
}
