import ATProto
import Basics
import DeliveryStore
import Foundation

/// What every method handler shares: the store, the log and the service's limits.
struct MethodEnvironment: Sendable {
    let store: DeliveryStore
    let log: Log
    let limits: ServiceLimits
    /// Where attachment files live (BLOB_DIR).
    let blobs: BlobDirectory
    /// Group commit for sendMessage.
    let messages: MessageBatcher

    /// The conversation, if the caller is one of its current members: 404 ConvoNotFound or 403 NotMember.
    func convo(_ convoID: String, memberDID did: DID) throws -> ConvoState {
        let convo = try store.loadConvo(convoID)
        guard try store.isMember(convoID: convoID, did: did) else { throw DeliveryStoreError.notMember }
        return convo
    }

    /// Runs `body` once per (caller, method, key): a repeat returns the first response (API.md,
    /// Idempotency). Without a key the body just runs in a transaction.
    func idempotent<Output: Encodable & Sendable>(
        _ context: AuthenticatedContext, key: String?, _ body: (DeliveryTransaction) throws -> Output
    ) throws -> XRPCOutput {
        guard let key else {
            return .json(try store.transaction { try body($0) })
        }
        guard !key.isEmpty, key.utf8.count <= 128 else { throw XRPCError.invalidRequest("idempotencyKey must be 1-128 characters") }
        let outcome = try store.idempotent(caller: context.caller, method: context.nsid, key: key) { tx in
            StoredResponse(status: 200, body: try XRPCJSON.encode(try body(tx)))
        }
        return .bytes(outcome.response.body, contentType: "application/json")
    }
}

/// Limits from the environment (docs/configuration.md).
public struct ServiceLimits: Sendable {
    /// PrivateMessage ciphertext (API.md: ≤ 10 MiB).
    public var maxCiphertextBytes = 10 << 20
    /// The size a thin-mode message may declare (API.md, "Thin delivery-service mode");
    /// THIN_MESSAGE_MAX_BYTES.
    public var maxExternalMessageBytes = 10 << 20
    /// A KeyPackage MLSMessage (API.md: ≤ 64 KiB).
    public var maxKeyPackageBytes = 64 << 10
    /// getKeyPackageStats answers needsReplenish below this many available packages.
    public var keyPackageThreshold = 10
    /// Service-side lifetime of a published package when the request gives none, and the cap.
    public var defaultKeyPackageExpiryDays = 30
    public var maxKeyPackageExpiryDays = 90
    /// A package's own not_after may be at most this far ahead (MLS.md, item 1).
    public var keyPackageMaxLifetimeDays = 400
    /// Members per conversation.
    public var maxMembers = 1000
    /// One uploadBlob body (API.md: ≤ 50 MiB).
    public var maxBlobBytes = 50 << 20
    /// Bytes of blobs one user may store (BLOB_QUOTA_BYTES).
    public var blobQuotaBytes: Int64 = 1 << 30
    /// Conversations one user may have created and still belong to (MAX_CONVOS_PER_USER).
    public var maxConvosPerUser = 10_000
    /// What one sender's stored application messages may cost (MESSAGE_QUOTA_BYTES): ciphertext
    /// bytes + 256 per message.
    public var messageQuotaBytes: Int64 = 1 << 30
    /// KEY_PACKAGE_USES_PER_REQUESTER, KEY_PACKAGE_USES_PER_TARGET, KEY_PACKAGE_USE_WINDOW.
    public var keyPackageUses = KeyPackageUseLimits()
    /// Requests whose body streams to a worker (uploadBlob, large bodies), at once per user
    /// (MAX_UPLOADS_PER_USER) and in all (MAX_UPLOADS; half the worker threads unless set).
    public var maxUploadsPerUser = 4
    public var maxUploads = 16

    public init() {}

    /// The store's share of these limits.
    public var storeConfiguration: DeliveryStore.Configuration {
        DeliveryStore.Configuration(messageQuotaBytes: messageQuotaBytes, maxConvosPerUser: maxConvosPerUser,
                                    keyPackageUses: keyPackageUses)
    }
}
