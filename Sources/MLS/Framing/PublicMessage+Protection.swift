import Primitives

/// Protecting and unprotecting a PublicMessage (RFC 9420 §6.2).
extension PublicMessage {
    /// Frames signed content as a PublicMessage and, for a member sender, adds
    /// membership_tag = MAC(membership_key, AuthenticatedContentTBM). Application data is refused.
    public init(
        protecting authenticated: AuthenticatedContent, membershipKey: [UInt8]?, context: GroupContext, suite: CipherSuite
    ) throws(FramingError) {
        guard authenticated.wireFormat == .publicMessage else { throw .wrongWireFormat }
        guard authenticated.content.contentType != .application else { throw .applicationMessageInPublicMessage }
        try authenticated.checkSenderAllowed()
        try authenticated.checkConfirmationTagPresence()
        var tag: [UInt8]?
        if case .member = authenticated.content.sender {
            guard let membershipKey else { throw .missingMembershipKey }
            let tbm = AuthenticatedContentTBM(contentTBS: authenticated.tbs(context: context), auth: authenticated.auth)
            tag = try MembershipTag.compute(suite: suite, membershipKey: membershipKey, tbm: tbm)
        }
        self.init(content: authenticated.content, auth: authenticated.auth, membershipTag: tag)
    }

    /// Signs `content` and frames it. A commit needs its `confirmationTag`.
    public static func protect(
        _ content: FramedContent, confirmationTag: [UInt8]? = nil, signingKey: SignaturePrivateKey,
        context: GroupContext, membershipKey: [UInt8]?, suite: CipherSuite
    ) throws(FramingError) -> PublicMessage {
        guard content.contentType != .application else { throw .applicationMessageInPublicMessage }
        var authenticated = try AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: content, signingKey: signingKey, context: context, suite: suite)
        if content.contentType == .commit { authenticated.auth.confirmationTag = confirmationTag }
        return try PublicMessage(protecting: authenticated, membershipKey: membershipKey, context: context, suite: suite)
    }

    /// The content with its auth data, as transcript hashes and proposal references see it.
    public var authenticatedContent: AuthenticatedContent {
        AuthenticatedContent(wireFormat: .publicMessage, content: content, auth: auth)
    }

    /// Checks the membership tag; only member senders carry one.
    public func verifyMembershipTag(membershipKey: [UInt8], context: GroupContext, suite: CipherSuite) throws(FramingError) {
        guard case .member = content.sender else { return }
        let tbm = AuthenticatedContentTBM(contentTBS: authenticatedContent.tbs(context: context), auth: auth)
        try MembershipTag.verify(membershipTag ?? [], suite: suite, membershipKey: membershipKey, tbm: tbm)
    }

    /// Checks group, epoch, content type, membership tag (member senders) and signature, and
    /// returns the authenticated content. `signaturePublicKey` is the sender's key, which the
    /// caller looks up from `content.sender` (a leaf, an external sender, or the joiner's leaf).
    /// A commit's confirmation tag is only checked for presence here; its value needs the next
    /// epoch's confirmation key.
    public func unprotect(
        context: GroupContext, membershipKey: [UInt8]?, signaturePublicKey: [UInt8], suite: CipherSuite
    ) throws(FramingError) -> AuthenticatedContent {
        try authenticatedContent.checkGroupAndEpoch(context)
        if case .member = content.sender {
            guard let membershipKey else { throw .missingMembershipKey }
            try verifyMembershipTag(membershipKey: membershipKey, context: context, suite: suite)
        }
        return try verifiedContent(context: context, signaturePublicKey: signaturePublicKey, suite: suite)
    }

    /// Every check of `unprotect` except the membership tag, for a party without the epoch's
    /// secrets, such as a delivery service (RFC 9420 §6.2: only members can check the tag).
    public func verifiedContent(
        context: GroupContext, signaturePublicKey: [UInt8], suite: CipherSuite
    ) throws(FramingError) -> AuthenticatedContent {
        let authenticated = authenticatedContent
        try authenticated.checkGroupAndEpoch(context)
        guard content.contentType != .application else { throw .applicationMessageInPublicMessage }
        try authenticated.checkSenderAllowed()
        try authenticated.verifySignature(publicKey: signaturePublicKey, context: context, suite: suite)
        try authenticated.checkConfirmationTagPresence()
        return authenticated
    }
}
