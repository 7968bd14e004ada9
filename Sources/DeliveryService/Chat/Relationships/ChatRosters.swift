import Basics
import ChatProtocol
import Synchronization

/// The active participants of conversations as this node last read them, by coordinates: a roster changes
/// only with the state version (defs `conversationCoordinates`), so (conversation, generation,
/// state version) names one roster for good. sendMessage's batched path checks blocks against it
/// without reading the database; a roster not held here sends the message the way of its own
/// transaction, which reads it.
final class ChatRosters: Sendable {
    private struct Key: Hashable {
        let conversation: ChatUUID
        let generation: UInt64
        let stateVersion: UInt64

        init(_ coordinates: ConversationCoordinates) {
            conversation = coordinates.conversationID
            generation = coordinates.generation
            stateVersion = coordinates.stateVersion
        }
    }

    /// Rosters held at most (each at most 100 DIDs).
    static let capacity = 4096
    private let rosters = Mutex<[Key: [DID]]>([:])

    func roster(at coordinates: ConversationCoordinates) -> [DID]? {
        rosters.withLock { $0[Key(coordinates)] }
    }

    func remember(_ participants: [String], at coordinates: ConversationCoordinates) {
        let dids = participants.compactMap { try? DID($0) }
        rosters.withLock { rosters in
            if rosters.count >= Self.capacity { rosters.removeAll(keepingCapacity: true) }
            rosters[Key(coordinates)] = dids
        }
    }
}
