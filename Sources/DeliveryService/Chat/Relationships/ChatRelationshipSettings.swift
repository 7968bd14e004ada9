/// CHAT_RELATIONSHIP_*: how the chat contract reads the records its relationship checks rest on
/// (docs/chat.md, "Consent and relationships"). Fetches share the DID resolver's limits (threads,
/// per host, queue, one request's deadline, the body cap, the SSRF guard, DID_RESOLVER_ALLOW_PRIVATE).
public struct ChatRelationshipSettings: Sendable, Equatable {
    /// How long a request waits for records being read (set aside, holding no worker) before it is
    /// answered 503 `RelationshipPolicyUnavailable`; also one account's read's whole budget.
    public var timeout: Double = 5
    /// How long records read are used by the checks that admit someone (createConversation,
    /// acceptConversation, leaf recovery); sendMessage and publishTyping use them ten times longer.
    public var freshFor: Double = 60
    /// Records read per account and collection (blocks, follows); past it the listing is incomplete.
    public var maxRecords: Int = 10_000
    /// Subjects (block and follow records) the cache holds at most, across accounts.
    public var cacheCapacity: Int = 2_000_000

    public init() {}
}
