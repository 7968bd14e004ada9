import ATProto
import ChatProtocol

/// An XRPC error name (API.md, Conventions: `{"error": name, "message": …}`). Every name the service
/// can answer is declared here, once: a method cannot invent one on the spot (the initializer is
/// private), and the metrics' labels can only be these.
public struct XRPCErrorName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// A name the chat contract's lexicons declare (`ChatErrorCode`, lexicon/chat/*.json).
    init(chat code: ChatErrorCode) { rawValue = code.rawValue }

    /// The name of a service-auth failure, declared once in ATProto (`AuthError`).
    init(_ error: AuthError) { rawValue = error.name }

    public var description: String { rawValue }

    /// Every name declared below.
    public static let all: [XRPCErrorName] = [
        .invalidRequest, .methodNotImplemented, .notFound, .payloadTooLarge, .rateLimitExceeded, .serviceUnavailable, .internalServerError, .authenticationRequired, .invalidDid, .invalidCursor, .tooManyDids, .batchTooLarge,
        .convoNotFound, .convoAlreadyExists, .notMember, .notAdmin, .unauthorized, .alreadyMember, .lastMember, .cannotRemoveSelf, .tooManyMembers, .tooManyConvos, .invalidCipherSuite,
        .invalidCommit, .notCommitter, .epochMismatch, .commitConflict, .groupFrozen, .pendingProposals, .invalidEpochRange, .invalidProposal, .invalidGroupInfo, .groupInfoRequired, .groupInfoUnavailable, .invalidWelcome, .welcomeNotFound, .welcomeStale,
        .invalidKeyPackage, .keyPackageNotFound, .duplicateKeyPackage, .tooManyKeyPackages, .tooManyKeyPackageUses, .expirationTooFar,
        .invalidMessage, .messageTooLarge, .messageIdConflict, .invalidAttachment, .blobNotFound, .blobTooLarge, .quotaExceeded, .rangeNotSatisfiable, .storageNotRegistered,
        .invalidTicket, .expiredTicket, .ticketAlreadyUsed, .ticketMismatch, .tooManySubscriptions,
        .invalidPushToken, .pushNotConfigured, .tooManyDevices,
    ]

    // Requests (API.md, Conventions)
    public static let invalidRequest = XRPCErrorName("InvalidRequest")
    public static let methodNotImplemented = XRPCErrorName("MethodNotImplemented")
    public static let notFound = XRPCErrorName("NotFound")
    public static let payloadTooLarge = XRPCErrorName("PayloadTooLarge")
    public static let rateLimitExceeded = XRPCErrorName("RateLimitExceeded")
    public static let serviceUnavailable = XRPCErrorName("ServiceUnavailable")
    public static let internalServerError = XRPCErrorName("InternalServerError")
    public static let authenticationRequired = XRPCErrorName("AuthenticationRequired")
    public static let invalidDid = XRPCErrorName("InvalidDid")
    public static let invalidCursor = XRPCErrorName("InvalidCursor")
    public static let tooManyDids = XRPCErrorName("TooManyDids")
    public static let batchTooLarge = XRPCErrorName("BatchTooLarge")

    // Conversations and membership
    public static let convoNotFound = XRPCErrorName("ConvoNotFound")
    public static let convoAlreadyExists = XRPCErrorName("ConvoAlreadyExists")
    public static let notMember = XRPCErrorName("NotMember")
    public static let notAdmin = XRPCErrorName("NotAdmin")
    public static let unauthorized = XRPCErrorName("Unauthorized")
    public static let alreadyMember = XRPCErrorName("AlreadyMember")
    public static let lastMember = XRPCErrorName("LastMember")
    public static let cannotRemoveSelf = XRPCErrorName("CannotRemoveSelf")
    public static let tooManyMembers = XRPCErrorName("TooManyMembers")
    /// MAX_CONVOS_PER_USER: conversations the caller created and still belongs to.
    public static let tooManyConvos = XRPCErrorName("TooManyConvos")
    public static let invalidCipherSuite = XRPCErrorName("InvalidCipherSuite")

    // Commits, proposals, GroupInfo and Welcomes (MLS.md, "What the service validates")
    public static let invalidCommit = XRPCErrorName("InvalidCommit")
    public static let notCommitter = XRPCErrorName("NotCommitter")
    public static let epochMismatch = XRPCErrorName("EpochMismatch")
    public static let commitConflict = XRPCErrorName("CommitConflict")
    /// A ReInit commit froze the conversation (RFC 9420 §11.2): nothing more is accepted in it.
    public static let groupFrozen = XRPCErrorName("GroupFrozen")
    /// A commit that leaves out a proposal the service holds for its epoch (a leave request).
    public static let pendingProposals = XRPCErrorName("PendingProposals")
    public static let invalidEpochRange = XRPCErrorName("InvalidEpochRange")
    public static let invalidProposal = XRPCErrorName("InvalidProposal")
    public static let invalidGroupInfo = XRPCErrorName("InvalidGroupInfo")
    /// A sealed (PrivateMessage) commit without the GroupInfo of the epoch it creates, through which
    /// alone the service can check it (docs/sealed-commits.md).
    public static let groupInfoRequired = XRPCErrorName("GroupInfoRequired")
    public static let groupInfoUnavailable = XRPCErrorName("GroupInfoUnavailable")
    public static let invalidWelcome = XRPCErrorName("InvalidWelcome")
    public static let welcomeNotFound = XRPCErrorName("WelcomeNotFound")
    public static let welcomeStale = XRPCErrorName("WelcomeStale")

    // KeyPackages
    public static let invalidKeyPackage = XRPCErrorName("InvalidKeyPackage")
    public static let keyPackageNotFound = XRPCErrorName("KeyPackageNotFound")
    public static let duplicateKeyPackage = XRPCErrorName("DuplicateKeyPackage")
    public static let tooManyKeyPackages = XRPCErrorName("TooManyKeyPackages")
    /// KEY_PACKAGE_USES_*: a commit would use up another user's KeyPackages faster than allowed (429).
    public static let tooManyKeyPackageUses = XRPCErrorName("TooManyKeyPackageUses")
    public static let expirationTooFar = XRPCErrorName("ExpirationTooFar")

    // Messages and attachments
    public static let invalidMessage = XRPCErrorName("InvalidMessage")
    public static let messageTooLarge = XRPCErrorName("MessageTooLarge")
    public static let messageIdConflict = XRPCErrorName("MessageIdConflict")
    public static let invalidAttachment = XRPCErrorName("InvalidAttachment")
    public static let blobNotFound = XRPCErrorName("BlobNotFound")
    public static let blobTooLarge = XRPCErrorName("BlobTooLarge")
    public static let quotaExceeded = XRPCErrorName("QuotaExceeded")
    public static let rangeNotSatisfiable = XRPCErrorName("RangeNotSatisfiable")
    public static let storageNotRegistered = XRPCErrorName("StorageNotRegistered")

    // Event subscriptions
    public static let invalidTicket = XRPCErrorName("InvalidTicket")
    public static let expiredTicket = XRPCErrorName("ExpiredTicket")
    public static let ticketAlreadyUsed = XRPCErrorName("TicketAlreadyUsed")
    public static let ticketMismatch = XRPCErrorName("TicketMismatch")
    public static let tooManySubscriptions = XRPCErrorName("TooManySubscriptions")

    // Push registrations (docs/push.md)
    /// A token, device id or Web Push subscription that is malformed, or an endpoint the service may not reach.
    public static let invalidPushToken = XRPCErrorName("InvalidPushToken")
    /// The platform's push service is not configured on this service.
    public static let pushNotConfigured = XRPCErrorName("PushNotConfigured")
    /// PUSH_MAX_DEVICES_PER_USER devices are registered already.
    public static let tooManyDevices = XRPCErrorName("TooManyDevices")
}
