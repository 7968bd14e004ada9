import Primitives

/// Protecting and unprotecting a PrivateMessage (RFC 9420 §6.3).
extension PrivateMessage {
    /// Signs `content` (a member's) for the PrivateMessage wire format and encrypts it. A commit
    /// needs its `confirmationTag`.
    public static func protect(
        _ content: FramedContent, confirmationTag: [UInt8]? = nil, signingKey: SignaturePrivateKey,
        context: GroupContext, secretTree: inout SecretTree, senderDataSecret: [UInt8], suite: CipherSuite,
        padding: PrivateMessagePadding = .none
    ) throws(FramingError) -> PrivateMessage {
        var authenticated = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: content, signingKey: signingKey, context: context, suite: suite)
        if content.contentType == .commit { authenticated.auth.confirmationTag = confirmationTag }
        return try encrypt(authenticated, secretTree: &secretTree, senderDataSecret: senderDataSecret, suite: suite, padding: padding)
    }

    /// Encrypts signed content with the sender's next ratchet key (application or handshake by
    /// content type), then encrypts the sender data under a key derived from the ciphertext sample.
    /// `reuseGuard` is random unless given (tests pin it).
    public static func encrypt(
        _ authenticated: AuthenticatedContent, secretTree: inout SecretTree, senderDataSecret: [UInt8],
        suite: CipherSuite, padding: PrivateMessagePadding = .none, reuseGuard: [UInt8]? = nil
    ) throws(FramingError) -> PrivateMessage {
        guard authenticated.wireFormat == .privateMessage else { throw .wrongWireFormat }
        guard case .member(let leaf) = authenticated.content.sender else { throw .senderNotMember }
        try authenticated.checkConfirmationTagPresence()
        let framed = authenticated.content
        let inner = PrivateMessageContent(content: framed.content, auth: authenticated.auth)
        let unpadded = inner.encoded(paddingLength: 0).count
        let paddingLength = try padding.paddingLength(forUnpadded: unpadded)
        // The ciphertext is an opaque<V>, so plaintext and AEAD tag must fit a varint length.
        guard paddingLength <= TLSWriter.maxVarint - suite.aead.tagSize - unpadded else { throw .invalidPadding }
        let plaintext = inner.encoded(paddingLength: paddingLength)

        var message = PrivateMessage(
            groupID: framed.groupID, epoch: framed.epoch, contentType: framed.contentType,
            authenticatedData: framed.authenticatedData, encryptedSenderData: [], ciphertext: [])
        let guardBytes = reuseGuard ?? SenderData.makeReuseGuard()
        let keyNonce: RatchetKeyNonce
        let nonce: [UInt8]
        do throws(ScheduleError) {
            keyNonce = try secretTree.next(leaf: leaf, type: Self.ratchetType(framed.contentType))
            nonce = try SenderData.applyReuseGuard(guardBytes, to: keyNonce.nonce)
        } catch {
            throw .schedule(error)
        }
        message.ciphertext = try seal(suite, key: keyNonce.key, nonce: nonce, aad: message.contentAAD.encoded(), plaintext: plaintext)
        let senderData = SenderData(leafIndex: leaf, generation: keyNonce.generation, reuseGuard: guardBytes)
        let (key, senderNonce) = try keyAndNonce(suite, senderDataSecret: senderDataSecret, ciphertext: message.ciphertext)
        message.encryptedSenderData = try seal(
            suite, key: key, nonce: senderNonce, aad: message.senderDataAAD.encoded(), plaintext: senderData.encoded())
        return message
    }

    /// Decrypts the sender data with the key and nonce from the ciphertext sample (RFC 9420 §6.3.2).
    public func decryptSenderData(senderDataSecret: [UInt8], suite: CipherSuite) throws(FramingError) -> SenderData {
        let (key, nonce) = try Self.keyAndNonce(suite, senderDataSecret: senderDataSecret, ciphertext: ciphertext)
        let plaintext: [UInt8]
        do {
            plaintext = try suite.open(key: key, nonce: nonce, aad: senderDataAAD.encoded(), ciphertext: encryptedSenderData)
        } catch .decryptionFailed {
            throw .senderDataDecryptionFailed
        } catch {
            throw .crypto(error)
        }
        do {
            return try SenderData(decoding: plaintext)
        } catch {
            throw .malformed(error)
        }
    }

    /// Decrypts sender data and content without checking the signature. The ratchet key is
    /// consumed only once the content authenticates, so a forgery leaves `secretTree` unchanged.
    public func decrypt(
        secretTree: inout SecretTree, senderDataSecret: [UInt8], suite: CipherSuite
    ) throws(FramingError) -> AuthenticatedContent {
        let senderData = try decryptSenderData(senderDataSecret: senderDataSecret, suite: suite)
        return try decryptContent(senderData: senderData, secretTree: &secretTree, suite: suite)
    }

    /// Checks group and epoch, decrypts, looks up the sender's signature key by leaf index and
    /// verifies the signature. `signaturePublicKey` returns nil for a leaf that holds no member.
    public func unprotect(
        context: GroupContext, secretTree: inout SecretTree, senderDataSecret: [UInt8], suite: CipherSuite,
        signaturePublicKey: (UInt32) -> [UInt8]?
    ) throws(FramingError) -> AuthenticatedContent {
        guard groupID == context.groupID else { throw .wrongGroupID }
        guard epoch == context.epoch else { throw .wrongEpoch(expected: context.epoch, actual: epoch) }
        let senderData = try decryptSenderData(senderDataSecret: senderDataSecret, suite: suite)
        // Look the sender up before consuming its key: a blank leaf must not burn a generation.
        guard let publicKey = signaturePublicKey(senderData.leafIndex) else {
            throw .unknownSender(.member(leafIndex: senderData.leafIndex))
        }
        let authenticated = try decryptContent(senderData: senderData, secretTree: &secretTree, suite: suite)
        try authenticated.verifySignature(publicKey: publicKey, context: context, suite: suite)
        return authenticated
    }

    /// The content AEAD with the ratchet key for the sender data's leaf and generation.
    func decryptContent(
        senderData: SenderData, secretTree: inout SecretTree, suite: CipherSuite
    ) throws(FramingError) -> AuthenticatedContent {
        var trial = secretTree
        let keyNonce: RatchetKeyNonce
        let nonce: [UInt8]
        do throws(ScheduleError) {
            keyNonce = try trial.keyNonce(
                leaf: senderData.leafIndex, type: Self.ratchetType(contentType), generation: senderData.generation)
            nonce = try SenderData.applyReuseGuard(senderData.reuseGuard, to: keyNonce.nonce)
        } catch {
            throw .schedule(error)
        }
        let plaintext: [UInt8]
        do {
            plaintext = try suite.open(key: keyNonce.key, nonce: nonce, aad: contentAAD.encoded(), ciphertext: ciphertext)
        } catch .decryptionFailed {
            throw .contentDecryptionFailed
        } catch {
            throw .crypto(error)
        }
        secretTree = trial
        let inner: PrivateMessageContent
        do {
            inner = try PrivateMessageContent(decoding: plaintext, contentType: contentType)
        } catch .invalidValue("nonzero padding") {
            throw .nonZeroPadding
        } catch {
            throw .malformed(error)
        }
        let framed = FramedContent(
            groupID: groupID, epoch: epoch, sender: .member(leafIndex: senderData.leafIndex),
            authenticatedData: authenticatedData, content: inner.content)
        let authenticated = AuthenticatedContent(wireFormat: .privateMessage, content: framed, auth: inner.auth)
        try authenticated.checkConfirmationTagPresence()
        return authenticated
    }

    /// Application data uses the application ratchet; proposals and commits the handshake ratchet (RFC 9420 §9.1).
    static func ratchetType(_ contentType: ContentType) -> RatchetType {
        contentType == .application ? .application : .handshake
    }

    private static func keyAndNonce(
        _ suite: CipherSuite, senderDataSecret: [UInt8], ciphertext: [UInt8]
    ) throws(FramingError) -> (key: [UInt8], nonce: [UInt8]) {
        do {
            return try SenderData.keyAndNonce(suite: suite, senderDataSecret: senderDataSecret, ciphertext: ciphertext)
        } catch {
            throw .crypto(error)
        }
    }

    private static func seal(
        _ suite: CipherSuite, key: [UInt8], nonce: [UInt8], aad: [UInt8], plaintext: [UInt8]
    ) throws(FramingError) -> [UInt8] {
        do {
            return try suite.seal(key: key, nonce: nonce, aad: aad, plaintext: plaintext)
        } catch {
            throw .crypto(error)
        }
    }
}
