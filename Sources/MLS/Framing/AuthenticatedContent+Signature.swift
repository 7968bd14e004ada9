import Primitives

/// Signing and verifying framed content (RFC 9420 §6.1).
extension AuthenticatedContent {
    static let signatureLabel = "FramedContentTBS"

    /// Signs `content` for `wireFormat`. Member and new-member-commit senders sign the GroupContext
    /// too. A commit's confirmation tag is left empty: it depends on this signature through the
    /// confirmed transcript hash, so the caller adds it afterwards.
    public static func signed(
        wireFormat: WireFormat, content: FramedContent, signingKey: SignaturePrivateKey, context: GroupContext,
        suite: CipherSuite
    ) throws(FramingError) -> AuthenticatedContent {
        let tbs = FramedContentTBS(wireFormat: wireFormat, content: content, context: context)
        let signature: [UInt8]
        do {
            signature = try suite.signWithLabel(signingKey, label: signatureLabel, content: tbs.encoded())
        } catch {
            throw .crypto(error)
        }
        return AuthenticatedContent(wireFormat: wireFormat, content: content, auth: FramedContentAuthData(signature: signature))
    }

    /// The bytes the signature covers, with `context` for senders that sign it.
    public func tbs(context: GroupContext) -> FramedContentTBS {
        FramedContentTBS(wireFormat: wireFormat, content: content, context: context)
    }

    /// Checks the signature with the sender's signature public key (raw bytes as in a LeafNode). The
    /// parsed key comes from `SignaturePublicKeyCache`, as the same senders sign message after message.
    public func verifySignature(publicKey: [UInt8], context: GroupContext, suite: CipherSuite) throws(FramingError) {
        guard let key = try? SignaturePublicKeyCache.shared.key(scheme: suite.signatureScheme, bytes: publicKey) else {
            throw .invalidSignature
        }
        let ok = suite.verifyWithLabel(
            key, label: Self.signatureLabel, content: tbs(context: context).encoded(), signature: auth.signature)
        guard ok else { throw .invalidSignature }
    }

    /// The content must be for `context`'s group and epoch.
    func checkGroupAndEpoch(_ context: GroupContext) throws(FramingError) {
        guard content.groupID == context.groupID else { throw .wrongGroupID }
        guard content.epoch == context.epoch else { throw .wrongEpoch(expected: context.epoch, actual: content.epoch) }
    }

    /// Non-member senders are limited to one content type each (RFC 9420 §6, §12.1.8, §12.4.3.2).
    func checkSenderAllowed() throws(FramingError) {
        switch content.sender {
        case .member: return
        case .external, .newMemberProposal:
            guard content.contentType == .proposal else { throw .contentTypeNotAllowedForSender }
        case .newMemberCommit:
            guard content.contentType == .commit else { throw .contentTypeNotAllowedForSender }
        }
    }

    /// A commit must carry a non-empty confirmation tag.
    func checkConfirmationTagPresence() throws(FramingError) {
        guard content.contentType == .commit else { return }
        guard let tag = auth.confirmationTag, !tag.isEmpty else { throw .missingConfirmationTag }
    }
}
