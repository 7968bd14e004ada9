import Primitives

/// The public state of one epoch, which the member (`Group`) and the observer (`PublicGroup`) share:
/// GroupContext, ratchet tree, interim transcript hash and the proposals received this epoch.
/// It holds no secret.
public struct GroupState: Sendable {
    public let suite: CipherSuite
    public internal(set) var context: GroupContext
    public internal(set) var tree: PublicRatchetTree
    /// interim_transcript_hash of this epoch (RFC 9420 §8.2), the input to the next commit's hash.
    public internal(set) var interimTranscriptHash: [UInt8]
    /// Standalone proposals received this epoch, in arrival order.
    public internal(set) var proposals: [CachedProposal]

    public init(suite: CipherSuite, context: GroupContext, tree: PublicRatchetTree, interimTranscriptHash: [UInt8],
                proposals: [CachedProposal] = []) {
        self.suite = suite
        self.context = context
        self.tree = tree
        self.interimTranscriptHash = interimTranscriptHash
        self.proposals = proposals
    }

    public var groupID: [UInt8] { context.groupID }
    public var epoch: UInt64 { context.epoch }

    /// RFC 9420 §11.1: the group's required_capabilities extension, if any. The context was checked
    /// by `checkContextExtensions` when this state was built.
    public var requiredCapabilities: RequiredCapabilities? {
        get throws(GroupError) { try Self.requiredCapabilities(in: context.extensions) }
    }

    /// RFC 9420 §11.1, decoded strictly: a required_capabilities extension that does not decode is
    /// an error, never "no requirement" (which would switch the capability checks off).
    static func requiredCapabilities(in extensions: [Extension]) throws(GroupError) -> RequiredCapabilities? {
        guard let ext = extensions.first(ofType: .requiredCapabilities) else { return nil }
        do { return try ext.decodeRequiredCapabilities() } catch { throw .malformedExtension(.requiredCapabilities) }
    }

    /// RFC 9420 §12.1.8.1: the parties allowed to send proposals from outside.
    public var externalSenders: [ExternalSender] {
        get throws(GroupError) { try Self.externalSenders(in: context.extensions) }
    }

    static func externalSenders(in extensions: [Extension]) throws(GroupError) -> [ExternalSender] {
        guard let ext = extensions.first(ofType: .externalSenders) else { return [] }
        do { return try ext.decodeExternalSenders() } catch { throw .malformedExtension(.externalSenders) }
    }

    /// A GroupContext's extension list (from a GroupContextExtensions proposal, a GroupInfo, or a new
    /// group): no type twice (RFC 9420 §13.4), and the known GroupContext extensions
    /// (required_capabilities §11.1, external_senders §12.1.8.1) decode exactly. Unknown types stay
    /// opaque; whether members support them is `checkCapabilities`' question. Returns the
    /// required_capabilities, if any. The one strict decoder for every path: PublicGroup, a new
    /// group, GroupContextExtensions proposals and `SealedCommitVerifier`.
    @discardableResult
    static func checkContextExtensions(_ extensions: [Extension]) throws(GroupError) -> RequiredCapabilities? {
        guard !extensions.hasDuplicateTypes else { throw .invalidProposal(.groupContextExtensions, "repeated extension type") }
        let required = try requiredCapabilities(in: extensions)
        _ = try externalSenders(in: extensions)
        return required
    }

    func checkHeader(groupID: [UInt8], epoch: UInt64) throws(GroupError) {
        guard groupID == context.groupID else { throw .wrongGroupID }
        guard epoch == context.epoch else { throw .wrongEpoch(expected: context.epoch, actual: epoch) }
    }

    /// The signature key a sender signs with (RFC 9420 §6.1): a member's leaf, an external sender
    /// from the extension, the KeyPackage of a new member's Add, or the leaf of an external commit's path.
    func signatureKey(for sender: Sender, content: Content) throws(GroupError) -> [UInt8] {
        switch sender {
        case .member(let leaf):
            guard let node = tree.leafNode(at: leaf) else { throw .unknownSender(sender) }
            return node.signatureKey
        case .external(let index):
            let senders = try externalSenders
            guard index < senders.count else { throw .unknownSender(sender) }
            return senders[Int(index)].signatureKey
        case .newMemberProposal:
            guard case .proposal(.add(let keyPackage)) = content else { throw .senderNotAllowed(sender, nil) }
            return keyPackage.leafNode.signatureKey
        case .newMemberCommit:
            guard case .commit(let commit) = content, let path = commit.path else {
                throw .invalidExternalCommit("an external commit needs a path")
            }
            return path.leafNode.signatureKey
        }
    }

    /// Group, epoch, sender and signature of a PublicMessage, without the membership tag (a party
    /// without the epoch's secrets cannot check it, RFC 9420 §6.2).
    func verifySignature(of message: PublicMessage) throws(GroupError) -> AuthenticatedContent {
        try checkHeader(groupID: message.content.groupID, epoch: message.content.epoch)
        let key = try signatureKey(for: message.content.sender, content: message.content.content)
        do {
            return try message.verifiedContent(context: context, signaturePublicKey: key, suite: suite)
        } catch {
            throw Self.map(error)
        }
    }

    static func map(_ error: FramingError) -> GroupError {
        switch error {
        case .invalidSignature: .invalidSignature
        case .invalidMembershipTag: .invalidMembershipTag
        case .missingConfirmationTag: .missingConfirmationTag
        case .invalidConfirmationTag: .invalidConfirmationTag
        case .wrongGroupID: .wrongGroupID
        case .wrongEpoch(let expected, let actual): .wrongEpoch(expected: expected, actual: actual)
        default: .framing(error)
        }
    }

    /// RFC 9420 §12.1: which sender types may propose which types. ExternalInit only travels inline
    /// in an external commit; Update only comes from a member.
    static func checkProposalSender(_ proposal: Proposal, sender: Sender) throws(GroupError) {
        let type = proposal.proposalType
        let allowed: Bool
        switch sender {
        case .member: allowed = type != .externalInit
        case .external: allowed = [.add, .remove, .psk, .reinit, .groupContextExtensions].contains(type)
        case .newMemberProposal: allowed = type == .add
        case .newMemberCommit: allowed = false
        }
        guard allowed else { throw .senderNotAllowed(sender, type) }
    }

    /// Stores a verified standalone proposal under its ProposalRef (RFC 9420 §5.2). Returns the entry;
    /// a proposal already cached is not stored twice.
    @discardableResult
    mutating func cacheProposal(_ authenticated: AuthenticatedContent) throws(GroupError) -> CachedProposal {
        guard case .proposal(let proposal) = authenticated.content.content else {
            throw .unexpectedMessage("not a proposal")
        }
        try Self.checkProposalSender(proposal, sender: authenticated.content.sender)
        let ref = suite.makeProposalRef(authenticated.encoded())
        let cached = CachedProposal(ref: ref, proposal: proposal, sender: authenticated.content.sender)
        if !proposals.contains(where: { $0.ref == ref }) { proposals.append(cached) }
        return cached
    }

    func cachedProposal(ref: [UInt8]) -> CachedProposal? { proposals.first { $0.ref == ref } }

    /// Appends proposals verified before (`PublicGroup.restoreRecordedProposals`), each ref once.
    mutating func restoreProposals(_ restored: [CachedProposal]) {
        var known = Set(proposals.map(\.ref))
        for cached in restored where known.insert(cached.ref).inserted { proposals.append(cached) }
    }
}
