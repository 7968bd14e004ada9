import Foundation

/// One occupied leaf of the validated ratchet tree, as the caller read it: the store derives
/// membership from these.
public struct MemberLeaf: Sendable, Hashable {
    public var leafIndex: UInt32
    /// The BasicCredential identity as in the leaf: a DID, or `did#device`.
    public var credentialIdentity: String
    /// The leaf's Credential, serialized.
    public var credential: [UInt8]

    public init(leafIndex: UInt32, credentialIdentity: String, credential: [UInt8]) {
        self.leafIndex = leafIndex
        self.credentialIdentity = credentialIdentity
        self.credential = credential
    }

    /// The member's DID: the identity without its `#device` fragment.
    public var did: String { MemberLeaf.did(fromIdentity: credentialIdentity) }

    public static func did(fromIdentity identity: String) -> String {
        guard let hash = identity.firstIndex(of: "#") else { return identity }
        return String(identity[..<hash])
    }
}

/// Why a leaf stopped being a member.
public enum DepartureReason: String, Sendable, Codable {
    /// The member asked to leave (its own Remove proposal).
    case left
    /// Another member removed it.
    case removed
}

/// A member row: current (`leftAt == nil`) or historical.
public struct MemberRow: Sendable, Equatable {
    public var convoID: String
    public var leafIndex: UInt32
    public var did: String
    public var credentialIdentity: String
    public var credential: [UInt8]
    public var isAdmin: Bool
    public var joinedAt: Date
    public var joinedEpoch: Int64
    public var leftAt: Date?
    public var leftEpoch: Int64?
    public var leftReason: DepartureReason?

    public var isCurrent: Bool { leftAt == nil }
}

/// A DID's role in a conversation while it has at least one current leaf.
public enum MemberRole: String, Sendable {
    case admin
    case member
}
