/// A conversation's position (`#conversationCoordinates`): which generation (a reset starts a new
/// one), the policy state version, the MLS group and epoch with the SHA-256 of its GroupContext and
/// its confirmation tag, and whether this generation is still active. Every transition names the
/// coordinates it starts from (`prior`) and, compared and swapped under the conversation's lock,
/// moves them; a stale `prior` is refused with `StaleCoordinates`.
public struct ConversationCoordinates: Sendable, Equatable {
    public enum Lifecycle: String, Sendable { case active, superseded }

    public var conversationID: ChatUUID
    public var generation: UInt64
    public var stateVersion: UInt64
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var groupContextHash: [UInt8]
    public var confirmationTag: [UInt8]
    public var lifecycle: Lifecycle

    public init(conversationID: ChatUUID, generation: UInt64, stateVersion: UInt64, groupID: [UInt8], epoch: UInt64,
                groupContextHash: [UInt8], confirmationTag: [UInt8], lifecycle: Lifecycle) {
        self.conversationID = conversationID
        self.generation = generation
        self.stateVersion = stateVersion
        self.groupID = groupID
        self.epoch = epoch
        self.groupContextHash = groupContextHash
        self.confirmationTag = confirmationTag
        self.lifecycle = lifecycle
    }

    /// From a projected `#conversationCoordinates` (its fields are present and in bounds).
    public init?(_ value: ChatValue?) {
        guard let value, let id = value["conversationId"]?.uuid, let generation = value["generation"]?.integer,
              let stateVersion = value["stateVersion"]?.integer, let groupID = value["groupId"]?.bytes,
              let epoch = value["epoch"]?.integer, let hash = value["groupContextHash"]?.bytes,
              let tag = value["confirmationTag"]?.bytes, let lifecycle = value["lifecycle"]?.text.flatMap(Lifecycle.init)
        else { return nil }
        self.init(conversationID: id, generation: generation, stateVersion: stateVersion, groupID: groupID, epoch: epoch,
                  groupContextHash: hash, confirmationTag: tag, lifecycle: lifecycle)
    }

    public var value: ChatValue {
        .object([
            "conversationId": .uuid(conversationID), "generation": .integer(generation), "stateVersion": .integer(stateVersion),
            "groupId": .bytes(groupID), "epoch": .integer(epoch), "groupContextHash": .bytes(groupContextHash),
            "confirmationTag": .bytes(confirmationTag), "lifecycle": .text(lifecycle.rawValue),
        ])
    }

    /// The same coordinates as the bytes-only `#mlsAadPriorContext` an MLS AAD carries.
    public var aadPriorContext: ChatValue {
        .object([
            "conversationId": .bytes(conversationID.bytes), "generation": .integer(generation),
            "stateVersion": .integer(stateVersion), "groupId": .bytes(groupID), "epoch": .integer(epoch),
            "groupContextHash": .bytes(groupContextHash), "confirmationTag": .bytes(confirmationTag),
            "lifecycle": .text(lifecycle.rawValue),
        ])
    }

    /// `#metadataCryptoContext`: what a metadata snapshot's encryption is bound to.
    public var metadataCryptoContext: ChatValue {
        .object([
            "conversationId": .bytes(conversationID.bytes), "generation": .integer(generation), "groupId": .bytes(groupID),
            "epoch": .integer(epoch), "groupContextHash": .bytes(groupContextHash), "confirmationTag": .bytes(confirmationTag),
        ])
    }
}

extension ConversationCoordinates {
    /// The canonical JSON of these coordinates (how the service stores a bound coordinate).
    public var json: [UInt8] { ChatJSON.render(value) }

    /// Coordinates read back from their canonical JSON.
    public init?(json: [UInt8]) {
        guard let value = try? ChatProjection().project(json: json, as: .ref("conversationCoordinates")) else { return nil }
        self.init(value)
    }
}

extension ConversationCoordinates {
    /// The largest integer the contract's coordinates carry (a JavaScript safe integer).
    public static let maxInteger: UInt64 = 9_007_199_254_740_991

    /// These coordinates with the state version one higher: where a change that does not move the
    /// MLS epoch (policy, metadata, acceptance, a zero-leaf leave) goes; `CoordinateOverflow` past the bound.
    public func nextStateVersion() throws -> ConversationCoordinates {
        guard stateVersion < Self.maxInteger else { throw ChatRefusal(.coordinateOverflow, "stateVersion is at its bound") }
        var next = self
        next.stateVersion += 1
        return next
    }
}
