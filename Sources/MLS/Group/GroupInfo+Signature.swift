import Primitives

/// Signing and checking a GroupInfo (RFC 9420 §12.4.3).
extension GroupInfo {
    static let signatureLabel = "GroupInfoTBS"

    /// signature = SignWithLabel(signer's key, "GroupInfoTBS", GroupInfoTBS).
    public mutating func sign(with signingKey: SignaturePrivateKey, suite: CipherSuite) throws(WelcomeError) {
        do {
            signature = try suite.signWithLabel(signingKey, label: Self.signatureLabel, content: tbs.encoded())
        } catch {
            throw .crypto(error)
        }
    }

    /// Checks the signature with the public key of the leaf at `signer` (raw bytes as in a LeafNode).
    public func verifySignature(publicKey: [UInt8], suite: CipherSuite) throws(WelcomeError) {
        let ok = suite.verifyWithLabel(publicKey: publicKey, label: Self.signatureLabel, content: tbs.encoded(), signature: signature)
        guard ok else { throw .invalidGroupInfoSignature }
    }

    /// confirmation_tag must equal MAC(confirmation_key, confirmed_transcript_hash) for the epoch's
    /// confirmation key (RFC 9420 §12.4.3.1).
    public func verifyConfirmationTag(confirmationKey: [UInt8], suite: CipherSuite) throws(WelcomeError) {
        do {
            try ConfirmationTag.verify(
                confirmationTag, suite: suite, confirmationKey: confirmationKey,
                confirmedTranscriptHash: groupContext.confirmedTranscriptHash)
        } catch .crypto(let error) {
            throw .crypto(error)
        } catch {
            throw .invalidConfirmationTag
        }
    }
}
