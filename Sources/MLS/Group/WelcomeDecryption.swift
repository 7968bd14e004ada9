import Primitives

/// The new member's side of a Welcome (RFC 9420 §12.4.3.1).
extension Welcome {
    /// The entry addressed to `keyPackageRef`, if any.
    public func secrets(for keyPackageRef: [UInt8]) -> EncryptedGroupSecrets? {
        secrets.first { $0.newMember == keyPackageRef }
    }

    /// Finds our entry, decrypts GroupSecrets with the KeyPackage's init private key, computes the
    /// PSK secret (`psk` returns the secret a PreSharedKeyID names, or nil), and decrypts the GroupInfo.
    public func decrypt(
        keyPackage: KeyPackage, initPrivateKey: [UInt8], psk: (PreSharedKeyID) -> [UInt8]? = { _ in nil }
    ) throws(WelcomeError) -> DecryptedWelcome {
        guard let suite = CipherSuite(rawValue: cipherSuite) else { throw .unsupportedCipherSuite(cipherSuite) }
        guard keyPackage.cipherSuite == cipherSuite else { throw .cipherSuiteMismatch }
        let ref = suite.makeKeyPackageRef(keyPackage.encoded())
        let groupSecrets = try decryptGroupSecrets(keyPackageRef: ref, initPrivateKey: initPrivateKey, suite: suite)
        var resolved: [(id: PreSharedKeyID, psk: [UInt8])] = []
        for id in groupSecrets.psks {
            guard let secret = psk(id) else { throw .missingPSK(id) }
            resolved.append((id, secret))
        }
        let pskSecret: [UInt8]
        do {
            pskSecret = try PSKSecret.compute(suite: suite, namedPSKs: resolved)
        } catch {
            throw .crypto(error)
        }
        let groupInfo = try decryptGroupInfo(joinerSecret: groupSecrets.joinerSecret, pskSecret: pskSecret, suite: suite)
        guard groupInfo.groupContext.cipherSuite == cipherSuite else { throw .cipherSuiteMismatch }
        return DecryptedWelcome(
            suite: suite, keyPackageRef: ref, groupSecrets: groupSecrets, pskSecret: pskSecret, groupInfo: groupInfo)
    }

    /// DecryptWithLabel(init_priv, "Welcome", encrypted_group_info, kem_output, ciphertext) → GroupSecrets.
    public func decryptGroupSecrets(
        keyPackageRef: [UInt8], initPrivateKey: [UInt8], suite: CipherSuite
    ) throws(WelcomeError) -> GroupSecrets {
        guard let entry = secrets(for: keyPackageRef) else { throw .noSecretsForKeyPackage }
        let plaintext: [UInt8]
        do {
            plaintext = try suite.decryptWithLabel(
                privateKey: initPrivateKey, label: Self.groupSecretsLabel, context: encryptedGroupInfo,
                kemOutput: entry.encryptedGroupSecrets.kemOutput, ciphertext: entry.encryptedGroupSecrets.ciphertext)
        } catch .decryptionFailed {
            throw .groupSecretsDecryptionFailed
        } catch {
            throw .crypto(error)
        }
        do {
            return try GroupSecrets(decoding: plaintext)
        } catch {
            throw .malformedGroupSecrets(error)
        }
    }

    /// welcome_secret from joiner_secret and psk_secret, then AEAD.Open with the welcome key and nonce.
    public func decryptGroupInfo(joinerSecret: [UInt8], pskSecret: [UInt8]?, suite: CipherSuite) throws(WelcomeError) -> GroupInfo {
        let plaintext: [UInt8]
        do {
            let welcomeSecret = try KeySchedule.welcomeSecret(suite: suite, joinerSecret: joinerSecret, pskSecret: pskSecret)
            let (key, nonce) = try KeySchedule.welcomeKeyAndNonce(suite: suite, welcomeSecret: welcomeSecret)
            plaintext = try suite.open(key: key, nonce: nonce, aad: [], ciphertext: encryptedGroupInfo)
        } catch .decryptionFailed {
            throw .groupInfoDecryptionFailed
        } catch {
            throw .crypto(error)
        }
        do {
            return try GroupInfo(decoding: plaintext)
        } catch {
            throw .malformedGroupInfo(error)
        }
    }
}
