/// An error name of the chat contract (the `errors` of its lexicons) and the status it travels
/// with (CHAT.md §1.3): the device and authorization codes 401, `RateLimited` 429,
/// `RelationshipPolicyUnavailable` 503, every other code 400. Clients act on the code.
public struct ChatErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public var status: Int {
        switch self {
        case .invalidSignature, .notAuthorized, .deviceRevoked, .deviceNotRegistered, .deviceBindingMismatch,
             .accountSessionExpired: 401
        case .rateLimited: 429
        case .relationshipPolicyUnavailable: 503
        default: 400
        }
    }

    public static let accessOutsideMembershipInterval = Self(rawValue: "AccessOutsideMembershipInterval")
    public static let accountSessionExpired = Self(rawValue: "AccountSessionExpired")
    public static let acknowledgementConflict = Self(rawValue: "AcknowledgementConflict")
    public static let adminRequired = Self(rawValue: "AdminRequired")
    public static let authenticationGenerationConflict = Self(rawValue: "AuthenticationGenerationConflict")
    public static let blobNotFound = Self(rawValue: "BlobNotFound")
    public static let blockedRelationship = Self(rawValue: "BlockedRelationship")
    public static let cancellationConflict = Self(rawValue: "CancellationConflict")
    public static let committerSelfRemovalForbidden = Self(rawValue: "CommitterSelfRemovalForbidden")
    public static let conversationAlreadyExists = Self(rawValue: "ConversationAlreadyExists")
    public static let conversationCloseNotAllowed = Self(rawValue: "ConversationCloseNotAllowed")
    public static let conversationLeafLimitReached = Self(rawValue: "ConversationLeafLimitReached")
    public static let conversationNotFound = Self(rawValue: "ConversationNotFound")
    public static let coordinateOverflow = Self(rawValue: "CoordinateOverflow")
    public static let cursorExpired = Self(rawValue: "CursorExpired")
    public static let cutoverRequired = Self(rawValue: "CutoverRequired")
    public static let deviceAlreadyExists = Self(rawValue: "DeviceAlreadyExists")
    public static let deviceBindingMismatch = Self(rawValue: "DeviceBindingMismatch")
    public static let deviceLimitReached = Self(rawValue: "DeviceLimitReached")
    public static let deviceNotFound = Self(rawValue: "DeviceNotFound")
    public static let deviceNotLeaf = Self(rawValue: "DeviceNotLeaf")
    public static let deviceNotRegistered = Self(rawValue: "DeviceNotRegistered")
    public static let deviceRevoked = Self(rawValue: "DeviceRevoked")
    public static let deviceTombstoned = Self(rawValue: "DeviceTombstoned")
    public static let directParticipantMutationForbidden = Self(rawValue: "DirectParticipantMutationForbidden")
    public static let duplicateDeviceLeaf = Self(rawValue: "DuplicateDeviceLeaf")
    public static let externalCommitForbidden = Self(rawValue: "ExternalCommitForbidden")
    public static let idempotencyConflict = Self(rawValue: "IdempotencyConflict")
    public static let invalidApplicationMessage = Self(rawValue: "InvalidApplicationMessage")
    public static let invalidCommit = Self(rawValue: "InvalidCommit")
    public static let invalidGenesisGroupInfo = Self(rawValue: "InvalidGenesisGroupInfo")
    public static let invalidKeyPackage = Self(rawValue: "InvalidKeyPackage")
    public static let invalidLeaveManifest = Self(rawValue: "InvalidLeaveManifest")
    public static let invalidMetadataSnapshot = Self(rawValue: "InvalidMetadataSnapshot")
    public static let invalidMlsArtifact = Self(rawValue: "InvalidMlsArtifact")
    public static let invalidRequest = Self(rawValue: "InvalidRequest")
    public static let invalidSignature = Self(rawValue: "InvalidSignature")
    public static let invalidTicket = Self(rawValue: "InvalidTicket")
    public static let invalidWelcomeMapping = Self(rawValue: "InvalidWelcomeMapping")
    public static let inventoryIncomplete = Self(rawValue: "InventoryIncomplete")
    public static let inventorySessionExpired = Self(rawValue: "InventorySessionExpired")
    public static let inventorySessionMismatch = Self(rawValue: "InventorySessionMismatch")
    public static let invitationLimitReached = Self(rawValue: "InvitationLimitReached")
    public static let invitationNotFound = Self(rawValue: "InvitationNotFound")
    public static let invitationNotPending = Self(rawValue: "InvitationNotPending")
    public static let invitationProvenanceMismatch = Self(rawValue: "InvitationProvenanceMismatch")
    public static let keyPackageInventoryLimitReached = Self(rawValue: "KeyPackageInventoryLimitReached")
    public static let keyPackageUnavailable = Self(rawValue: "KeyPackageUnavailable")
    public static let lastAdminRequired = Self(rawValue: "LastAdminRequired")
    public static let leafRecoveryAlreadyOpen = Self(rawValue: "LeafRecoveryAlreadyOpen")
    public static let leafRecoveryExpired = Self(rawValue: "LeafRecoveryExpired")
    public static let leafRecoveryNotFound = Self(rawValue: "LeafRecoveryNotFound")
    public static let leafRecoverySuperseded = Self(rawValue: "LeafRecoverySuperseded")
    public static let leaveAlreadyPending = Self(rawValue: "LeaveAlreadyPending")
    public static let leaveRequestExpired = Self(rawValue: "LeaveRequestExpired")
    public static let leaveRequestNotFound = Self(rawValue: "LeaveRequestNotFound")
    public static let leaveRequestStale = Self(rawValue: "LeaveRequestStale")
    public static let messagesDisabled = Self(rawValue: "MessagesDisabled")
    public static let metadataNonceReuse = Self(rawValue: "MetadataNonceReuse")
    public static let metadataVersionOverflow = Self(rawValue: "MetadataVersionOverflow")
    public static let missingMetadataSnapshot = Self(rawValue: "MissingMetadataSnapshot")
    public static let notAuthorized = Self(rawValue: "NotAuthorized")
    public static let notEntitled = Self(rawValue: "NotEntitled")
    public static let notFollowedByRecipient = Self(rawValue: "NotFollowedByRecipient")
    public static let notMember = Self(rawValue: "NotMember")
    public static let notParticipant = Self(rawValue: "NotParticipant")
    public static let participantLeafLimitReached = Self(rawValue: "ParticipantLeafLimitReached")
    public static let participantLimitReached = Self(rawValue: "ParticipantLimitReached")
    public static let rateLimited = Self(rawValue: "RateLimited")
    public static let rejectionConflict = Self(rawValue: "RejectionConflict")
    public static let relationshipPolicyUnavailable = Self(rawValue: "RelationshipPolicyUnavailable")
    public static let resetAlreadyPending = Self(rawValue: "ResetAlreadyPending")
    public static let resetRequestNotFound = Self(rawValue: "ResetRequestNotFound")
    public static let resetRequestStale = Self(rawValue: "ResetRequestStale")
    public static let staleCoordinates = Self(rawValue: "StaleCoordinates")
    public static let standaloneProposalForbidden = Self(rawValue: "StandaloneProposalForbidden")
    public static let unsupportedMlsProfile = Self(rawValue: "UnsupportedMlsProfile")
    public static let welcomeExpired = Self(rawValue: "WelcomeExpired")
    public static let welcomeNotFound = Self(rawValue: "WelcomeNotFound")
    public static let welcomeSuperseded = Self(rawValue: "WelcomeSuperseded")
}

/// A request the chat contract refuses: its code and a message for people (logs, the error body).
/// Nothing of a refused request is stored, except a retired message id (docs/chat.md).
public struct ChatRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: ChatErrorCode
    public let message: String
    /// Seconds after which the same request may succeed (`Retry-After`), for the codes that say
    /// "not now": `RateLimited`, `RelationshipPolicyUnavailable`.
    public let retryAfter: Int?

    public init(_ code: ChatErrorCode, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
