/// The MLS `authenticated_data` the contract puts on its messages (defs `commitAad`,
/// `applicationAad`): a domain followed by the canonical DAG-CBOR of the AAD object the signed body
/// carries. The service compares the message's authenticated_data with these bytes, so that a
/// commit or message cannot be moved to other coordinates than the ones its sender signed.
public enum MLSAuthenticatedData {
    public static let commitDomain = "CATBIRD-CHAT-MLS-AAD-COMMIT\0"
    public static let applicationDomain = "CATBIRD-CHAT-MLS-AAD-MESSAGE\0"

    public static func bytes(domain: String, aad: ChatValue) -> [UInt8] {
        var out = Array(domain.utf8)
        DAGCBOR.append(aad.dagCBOR(.signing), to: &out)
        return out
    }

    /// `#commitAad` for a transition from `prior`.
    public static func commitAAD(transitionID: ChatUUID, prior: ConversationCoordinates) -> ChatValue {
        .object([
            "protocolVersion": .text("1"), "conversationId": .bytes(prior.conversationID.bytes),
            "generation": .integer(prior.generation), "transitionId": .bytes(transitionID.bytes), "prior": prior.aadPriorContext,
        ])
    }

    /// `#applicationAad` for a message sent at `prior`.
    public static func applicationAAD(messageID: ChatUUID, prior: ConversationCoordinates) -> ChatValue {
        .object([
            "protocolVersion": .text("1"), "conversationId": .bytes(prior.conversationID.bytes),
            "generation": .integer(prior.generation), "messageId": .bytes(messageID.bytes), "prior": prior.aadPriorContext,
        ])
    }
}
