import ChatProtocol
import DeliveryStore

/// A conversation's roster as one transition changes it (defs `participantChange`, `leafChange`):
/// the changes are applied to a copy, in order, each checked against the roster as it stands, and
/// then the result as a whole (`checkResult`): at most 100 participants, 100 leaves and 20 leaves
/// per DID (CHAT.md §3), and an active admin left among the participants (last-admin protection,
/// `LastAdminRequired`: the last participant closes the conversation rather than leave it). The
/// store is then changed to match; nothing here touches it.
struct ChatRoster {
    static let maxParticipants = 100
    static let maxLeaves = 100
    static let maxLeavesPerDID = 20

    private(set) var participants: [String: ChatParticipant]
    private(set) var leaves: [ChatLeaf]
    /// What the applied changes did, for the store and the events.
    private(set) var added: [ChatParticipant] = []
    private(set) var removed: [String] = []
    private(set) var roleChanges: [(did: String, role: String)] = []
    private(set) var removedLeaves: [ChatLeaf] = []

    init(participants: [ChatParticipant], leaves: [ChatLeaf]) {
        self.participants = Dictionary(participants.map { ($0.did, $0) }, uniquingKeysWith: { first, _ in first })
        self.leaves = leaves
    }

    func participant(_ did: String) -> ChatParticipant? { participants[did] }
    func leaves(of did: String) -> [ChatLeaf] { leaves.filter { $0.did == did } }
    func isActiveAdmin(_ did: String) -> Bool { participants[did].map { $0.status == "active" && $0.role == "admin" } ?? false }

    /// `#participantChange` members, as a policy or commit manifest lists them.
    enum Change {
        case add(did: String, provenance: ChatValue)
        case remove(did: String)
        case role(did: String, role: String)

        init(_ value: ChatValue) throws {
            guard let did = value["userDid"]?.text else { throw ChatRefusal(.invalidRequest, "a participant change names no DID") }
            switch value.type {
            case ChatSchema.typePrefix + "addParticipant":
                guard let provenance = value["invitationProvenance"] else { throw ChatRefusal(.invalidRequest, "an invitation needs its provenance") }
                self = .add(did: did, provenance: provenance)
            case ChatSchema.typePrefix + "removeParticipant": self = .remove(did: did)
            case ChatSchema.typePrefix + "changeParticipantRole":
                guard let role = value["role"]?.text else { throw ChatRefusal(.invalidRequest, "a role change names no role") }
                self = .role(did: did, role: role)
            default: throw ChatRefusal(.invalidRequest, "unknown participant change")
            }
        }

        var did: String {
            switch self { case .add(let did, _), .remove(let did), .role(let did, _): did }
        }
    }

    /// Applies one participant change. A DID appears in at most one change of a transition.
    /// `removeWithLeaves` says whether the DID's leaves may go with it (a commit removes them; a
    /// policy transition, which does not move the MLS epoch, may only remove a zero-leaf participant).
    mutating func apply(_ change: Change, expectedProvenance: ChatValue? = nil, removeWithLeaves: Bool) throws {
        guard !added.contains(where: { $0.did == change.did }), !removed.contains(change.did),
              !roleChanges.contains(where: { $0.did == change.did }) else {
            throw ChatRefusal(.invalidRequest, "\(change.did) appears in more than one participant change")
        }
        switch change {
        case .add(let did, let provenance):
            guard participants[did] == nil else { throw ChatRefusal(.invalidRequest, "\(did) is a participant already") }
            guard let expectedProvenance, provenance == expectedProvenance else {
                throw ChatRefusal(.invitationProvenanceMismatch, "an invitation's provenance is this transition and its signing device")
            }
            let participant = ChatParticipant(did: did, role: "member", status: "pending", provenance: ChatJSON.render(provenance))
            participants[did] = participant
            added.append(participant)
        case .remove(let did):
            guard participants[did] != nil else { throw ChatRefusal(.notMember, "\(did) is not a participant") }
            let theirs = leaves(of: did)
            if !removeWithLeaves, !theirs.isEmpty {
                throw ChatRefusal(.invalidRequest, "\(did) holds leaves: a commit removes them with the participant")
            }
            participants[did] = nil
            removed.append(did)
        case .role(let did, let role):
            guard var participant = participants[did] else { throw ChatRefusal(.notMember, "\(did) is not a participant") }
            guard participant.role != role else { throw ChatRefusal(.invalidRequest, "\(did) already has role \(role)") }
            guard participant.status == "active" else { throw ChatRefusal(.invalidRequest, "only an active participant's role changes") }
            participant.role = role
            participants[did] = participant
            roleChanges.append((did, role))
        }
    }

    /// Removes one device's leaf (a commit's Remove).
    mutating func removeLeaf(did: String, device: ChatUUID) throws {
        guard let index = leaves.firstIndex(where: { $0.did == did && $0.deviceID == device }) else {
            throw ChatRefusal(.invalidLeaveManifest, "\(did) device \(device) holds no leaf")
        }
        removedLeaves.append(leaves.remove(at: index))
    }

    /// Adds a device's leaf (a recovery's Add).
    mutating func addLeaf(_ leaf: ChatLeaf) {
        leaves.append(leaf)
    }

    /// The bounds and the last-admin rule, on the roster after every change.
    func checkResult() throws {
        guard participants.count <= Self.maxParticipants else {
            throw ChatRefusal(.participantLimitReached, "a conversation has at most \(Self.maxParticipants) participants")
        }
        guard leaves.count <= Self.maxLeaves else {
            throw ChatRefusal(.conversationLeafLimitReached, "a conversation has at most \(Self.maxLeaves) leaves")
        }
        var perDID: [String: Int] = [:]
        for leaf in leaves { perDID[leaf.did, default: 0] += 1 }
        guard perDID.values.allSatisfy({ $0 <= Self.maxLeavesPerDID }) else {
            throw ChatRefusal(.participantLeafLimitReached, "a participant has at most \(Self.maxLeavesPerDID) leaves")
        }
        for leaf in leaves where participants[leaf.did] == nil {
            throw ChatRefusal(.invalidLeaveManifest, "\(leaf.did) would keep leaves without being a participant")
        }
        // Pending admins (a direct conversation's invitee) do not count: only an active one can act.
        guard participants.values.contains(where: { $0.status == "active" && $0.role == "admin" }) else {
            throw ChatRefusal(.lastAdminRequired, participants.isEmpty ? "the last participant closes the conversation instead"
                                                                       : "an active admin must remain")
        }
    }
}
