import ChatProtocol
import DeliveryStore
import Foundation
import MLS

/// What the chat contract's handlers share: the one store, log and limits of the service, the
/// cipher suites chat conversations may use (the contract's X-Wing, more with CHAT_CIPHER_SUITES
/// for tests), the clock, where clients subscribe, and the records relationship checks rest on.
struct ChatEnvironment: Sendable {
    let store: DeliveryStore
    let log: Log
    let limits: ServiceLimits
    let cipherSuites: Set<UInt16>
    /// `wss://host/xrpc/blue.catbird.chat.subscribeEvents`, returned with every ticket.
    let subscriptionEndpoint: String
    let clock: @Sendable () -> Date
    /// The blob store chat blobs share with v1's attachments (BLOB_DIR).
    let blobs: BlobDirectory
    let projection = ChatProjection()
    /// Device keys seen, for sendMessage's path without a read before its batch.
    let deviceKeys = ChatDeviceKeys()
    /// Group commit of sendMessage (`appendChatMessages`), on the lanes and batch size of v1's.
    let messages: GroupCommitLanes<ChatBatchedMessage, Result<ChatBatchedOutcome, DeliveryStoreError>>
    /// Blocks, follows and chat policies read from users' PDSes (docs/chat.md, "Consent and relationships").
    let relationships: RelationshipResolver
    /// Participants by coordinates, for sendMessage's block check without a read.
    let rosters = ChatRosters()
    /// Typing indicators: their rate, their fan-out to every node, their idempotency.
    let typing: ChatTyping
    /// Push registrations one account may hold (PUSH_MAX_DEVICES_PER_USER), updatePushToken's too.
    let maxPushDevices: Int

    init(store: DeliveryStore, log: Log, limits: ServiceLimits, cipherSuites: Set<UInt16>, serviceEndpoint: String, blobs: BlobDirectory,
         relationships: RelationshipResolver, typing: ChatTypingSettings = ChatTypingSettings(), maxPushDevices: Int = 20,
         batching: MessageBatchSettings = MessageBatchSettings(), clock: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.blobs = blobs
        self.maxPushDevices = maxPushDevices
        self.relationships = relationships
        self.typing = ChatTyping(settings: typing, store: store, log: log, clock: clock)
        messages = GroupCommitLanes(lanes: batching.lanes, maxBatch: batching.maxBatch) { store.appendChatMessages($0) }
        self.log = log
        self.limits = limits
        self.cipherSuites = cipherSuites
        var endpoint = serviceEndpoint
        if endpoint.hasPrefix("https://") { endpoint = "wss://" + endpoint.dropFirst(8) }
        if endpoint.hasPrefix("http://") { endpoint = "ws://" + endpoint.dropFirst(7) }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        subscriptionEndpoint = endpoint + "/xrpc/" + ChatMethods.subscribeEvents
        self.clock = clock
    }

    /// The quota prepareBlobUpload enforces: BLOB_QUOTA_BYTES, the one v1's uploads share, but
    /// never more than the contract's constant, which getBlobUsage reports (docs/chat.md "Blobs").
    var blobQuota: Int64 { min(limits.blobQuotaBytes, ChatTransaction.contractBlobQuota) }

    var blobReclaimer: BlobReclaimer { BlobReclaimer(store: store, blobs: blobs, log: log) }

    /// The contract's only suite (defs `cipherSuite`): MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519.
    static let contractSuite: UInt16 = 0x004D

    /// A JSON body as the method's output is written: the object a handler built.
    func output(_ value: ChatValue) -> XRPCOutput { .bytes(ChatJSON.render(value), contentType: "application/json") }

    func output(_ json: [UInt8]) -> XRPCOutput { .bytes(json, contentType: "application/json") }
}
