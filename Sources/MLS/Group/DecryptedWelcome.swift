import Primitives

/// What a new member has once a Welcome is decrypted: GroupSecrets, the PSK secret they imply and
/// the GroupInfo, not yet verified (RFC 9420 §12.4.3.1).
public struct DecryptedWelcome: Sendable {
    public let suite: CipherSuite
    /// The reference of the KeyPackage the secrets were addressed to.
    public let keyPackageRef: [UInt8]
    public let groupSecrets: GroupSecrets
    /// psk_secret over GroupSecrets.psks (the zero vector when there are none).
    public let pskSecret: [UInt8]
    public let groupInfo: GroupInfo

    /// Verifies the GroupInfo signature with the signer's leaf key (the caller finds the leaf at
    /// `groupInfo.signer` in the ratchet tree), runs the key schedule from joiner_secret with the
    /// GroupContext, and checks the confirmation tag. Returns the epoch's secrets.
    public func verify(signerPublicKey: [UInt8]) throws(WelcomeError) -> EpochSecrets {
        try groupInfo.verifySignature(publicKey: signerPublicKey, suite: suite)
        let secrets: EpochSecrets
        do {
            secrets = try EpochSecrets(
                suite: suite, joinerSecret: groupSecrets.joinerSecret, pskSecret: pskSecret,
                groupContext: groupInfo.groupContext.encoded())
        } catch {
            throw .crypto(error)
        }
        try groupInfo.verifyConfirmationTag(confirmationKey: secrets.confirmationKey, suite: suite)
        return secrets
    }

    /// The transcript hashes a joiner starts from (RFC 9420 §8.2).
    public var transcriptHashes: TranscriptHashes {
        TranscriptHashes.fromConfirmed(
            suite: suite, confirmed: groupInfo.groupContext.confirmedTranscriptHash, confirmationTag: groupInfo.confirmationTag)
    }
}
