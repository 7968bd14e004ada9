/// The 24 signed bodies of the contract and the domain each signature is bound to: a transcript is
/// the domain's ASCII (ending in NUL) followed by the body's canonical DAG-CBOR, so that a
/// signature for one kind of request can never be replayed as another.
public enum SignedMutationKind: String, CaseIterable, Sendable {
    case deviceEnrollment = "deviceEnrollmentBody"
    case keyPackageReplenishment = "keyPackageReplenishmentBody"
    case deviceRevocation = "deviceRevocationBody"
    case blobUploadPreparation = "blobUploadPreparationBody"
    case blobDeletion = "blobDeletionBody"
    case creation = "creationBody"
    case commitTransition = "commitTransitionBody"
    case policyTransition = "policyTransitionBody"
    case participantAcceptance = "participantAcceptanceBody"
    case applicationSend = "applicationSendBody"
    case typing = "typingBody"
    case metadataTransition = "metadataTransitionBody"
    case resetRequest = "resetRequestBody"
    case resetActivation = "resetActivationBody"
    case leafRecoveryRequest = "leafRecoveryRequestBody"
    case leafRecoveryCancellation = "leafRecoveryCancellationBody"
    case leafRecoveryFulfillment = "leafRecoveryFulfillmentBody"
    case conversationClose = "conversationCloseBody"
    case leaveRequest = "leaveRequestBody"
    case zeroLeafLeave = "zeroLeafLeaveBody"
    case leaveCancellation = "leaveCancellationBody"
    case leaveCommitFulfillment = "leaveCommitFulfillmentBody"
    case welcomeAcknowledgement = "welcomeAcknowledgementBody"
    case welcomeRejection = "welcomeRejectionBody"

    public var typeID: String { ChatSchema.typePrefix + rawValue }

    public init?(typeID: String) {
        guard typeID.hasPrefix(ChatSchema.typePrefix) else { return nil }
        self.init(rawValue: String(typeID.dropFirst(ChatSchema.typePrefix.count)))
    }

    /// The body's `signatureDomain` constant (the schema holds the same text; ChatSchemaTests checks).
    public var domain: String {
        let name = switch self {
        case .deviceEnrollment: "DEVICE-ENROLL"
        case .keyPackageReplenishment: "DEVICE-REPLENISH"
        case .deviceRevocation: "DEVICE-REVOKE"
        case .blobUploadPreparation: "BLOB-PREPARE"
        case .blobDeletion: "BLOB-DELETE"
        case .creation: "CREATE"
        case .commitTransition: "COMMIT"
        case .policyTransition: "POLICY"
        case .participantAcceptance: "ACCEPT"
        case .applicationSend: "MESSAGE"
        case .typing: "TYPING"
        case .metadataTransition: "METADATA"
        case .resetRequest: "RESET-REQUEST"
        case .resetActivation: "RESET-ACTIVATE"
        case .leafRecoveryRequest: "LEAF-RECOVERY-REQUEST"
        case .leafRecoveryCancellation: "LEAF-RECOVERY-CANCEL"
        case .leafRecoveryFulfillment: "LEAF-RECOVERY-FULFILL"
        case .conversationClose: "CLOSE"
        case .leaveRequest: "LEAVE-REQUEST"
        case .zeroLeafLeave: "LEAVE-ZERO-LEAF"
        case .leaveCancellation: "LEAVE-CANCEL"
        case .leaveCommitFulfillment: "LEAVE-FULFILL-COMMIT"
        case .welcomeAcknowledgement: "WELCOME-ACK"
        case .welcomeRejection: "WELCOME-REJECT"
        }
        return "CATBIRD-CHAT-\(name)\0"
    }

    /// The field naming the signing device: enrollment names the new device itself.
    var deviceField: String { self == .deviceEnrollment ? "deviceId" : "actorDeviceId" }
    var generationField: String { self == .deviceEnrollment ? "expectedAuthGeneration" : "authGeneration" }

    /// The client-chosen id a retry repeats: a message's and a typing event's own id, every other
    /// body's `idempotencyKey`.
    var operationField: String {
        switch self {
        case .applicationSend: "messageId"
        case .typing: "typingId"
        default: "idempotencyKey"
        }
    }
}
