import Basics
import ChatProtocol
import DeliveryStore

extension ChatConsent {
    /// Blocks between `did` and the other participants of `conversation`, for a participant about to
    /// hold a leaf there (an acceptance; with `leaf`, a device added by that current leaf's
    /// fulfilment). Anyone else gets no check: the transaction refuses them without reading
    /// anyone's records.
    static func joining(_ did: String?, _ conversation: ChatUUID, addedBy leaf: (did: String, device: ChatUUID)? = nil,
                        env: ChatEnvironment) throws -> ChatConsent {
        guard let did, let account = try? DID(did) else { return ChatConsent(blocks: .roster([])) }
        let participants = try env.store.chat { tx -> [ChatParticipant] in
            if let leaf, try tx.leaf(conversation, did: leaf.did, device: leaf.device) == nil { return [] }
            guard try tx.participant(conversation, did: did) != nil else { return [] }
            return try tx.participants(conversation)
        }
        return ChatConsent(blocks: .actor(account, others: participants.compactMap { try? DID($0.did) }))
    }
}

extension ChatConsent {
    /// Blocks between each account a policy transition invites and every participant (upstream
    /// checks only blocks here: the invitee consents by accepting).
    static func inviting(_ invitees: [String], _ conversation: ChatUUID, env: ChatEnvironment) throws -> ChatConsent {
        let newcomers = invitees.compactMap { try? DID($0) }
        guard !newcomers.isEmpty else { return ChatConsent(blocks: .roster([])) }
        let participants = try env.store.chat { try $0.participants(conversation) }
        return ChatConsent(blocks: .newcomers(newcomers, joining: participants.compactMap { try? DID($0.did) }))
    }
}

extension ChatEnvironment {
    /// The rest of a signed call, once `check` admits it (docs/chat.md, "Consent and
    /// relationships"): decided from the cache at once when it holds every record the check needs;
    /// otherwise the request waits, set aside and holding no worker, while the records are read,
    /// and `finish` then runs on a worker. A refusal is the check's code; records that cannot be
    /// read within `CHAT_RELATIONSHIP_TIMEOUT` are 503 `RelationshipPolicyUnavailable` with
    /// `Retry-After`. Nothing is stored before the check admits the call.
    func admit(_ check: ChatConsent, _ context: AuthenticatedContext,
               then finish: @escaping @Sendable () throws -> XRPCOutput) throws -> XRPCOutput {
        let relationships = relationships
        let now = check.verdict { relationships.state($0, for: .admission) }
        guard case .needs = now else { return try Self.conclude(now, relationships, finish) }
        return .pending(XRPCPendingOutput { complete in
            relationships.decide(check) { verdict in
                context.submit { complete(Result { try Self.conclude(verdict, relationships, finish) }) }
            }
        })
    }

    private static func conclude(_ verdict: ChatConsent.Verdict, _ relationships: RelationshipResolver,
                                 _ finish: () throws -> XRPCOutput) throws -> XRPCOutput {
        switch verdict {
        case .allowed:
            return try finish()
        case .refused(let code):
            throw ChatRefusal(code, Self.reason(code))
        case .needs, .unavailable:
            throw ChatRefusal(.relationshipPolicyUnavailable, "the accounts' relationship records could not be read in time",
                              retryAfter: Int(relationships.settings.timeout.rounded(.up)))
        }
    }

    static func reason(_ code: ChatErrorCode) -> String {
        switch code {
        case .blockedRelationship: "one of these accounts blocks the other"
        case .messagesDisabled: "the recipient takes no new conversations"
        case .notFollowedByRecipient: "the recipient takes new conversations only from accounts it follows"
        default: code.rawValue
        }
    }
}
