import Primitives

/// The sender's side of a Welcome (RFC 9420 §12.4.3.1).
extension Welcome {
    /// One new member: its KeyPackage and the GroupSecrets meant for it.
    public struct Recipient: Sendable {
        public var keyPackage: KeyPackage
        public var groupSecrets: GroupSecrets

        public init(keyPackage: KeyPackage, groupSecrets: GroupSecrets) {
            self.keyPackage = keyPackage
            self.groupSecrets = groupSecrets
        }
    }

    /// Encrypts a signed GroupInfo under the welcome key and nonce, and each recipient's
    /// GroupSecrets to its KeyPackage's init key with the encrypted GroupInfo as context.
    public static func encrypt(
        groupInfo: GroupInfo, welcomeSecret: [UInt8], recipients: [Recipient], suite: CipherSuite
    ) throws(WelcomeError) -> Welcome {
        guard groupInfo.groupContext.cipherSuite == suite.rawValue else { throw .cipherSuiteMismatch }
        let encryptedGroupInfo = try encryptGroupInfo(groupInfo, welcomeSecret: welcomeSecret, suite: suite)
        // The EncryptContext holds the whole encrypted GroupInfo (with the ratchet tree): hashed once.
        let prepared: HPKEPreparedInfo
        do { prepared = try suite.prepareEncryptContext(label: groupSecretsLabel, context: encryptedGroupInfo) } catch {
            throw .crypto(error)
        }
        var secrets: [EncryptedGroupSecrets] = []
        secrets.reserveCapacity(recipients.count)
        for recipient in recipients {
            secrets.append(try encryptGroupSecrets(recipient.groupSecrets, to: recipient.keyPackage, prepared: prepared, suite: suite))
        }
        return Welcome(cipherSuite: suite.rawValue, secrets: secrets, encryptedGroupInfo: encryptedGroupInfo)
    }

    /// encrypted_group_info = AEAD.Seal(welcome_key, welcome_nonce, "", GroupInfo).
    public static func encryptGroupInfo(_ groupInfo: GroupInfo, welcomeSecret: [UInt8], suite: CipherSuite) throws(WelcomeError) -> [UInt8] {
        do {
            let (key, nonce) = try KeySchedule.welcomeKeyAndNonce(suite: suite, welcomeSecret: welcomeSecret)
            return try suite.seal(key: key, nonce: nonce, aad: [], plaintext: groupInfo.encoded())
        } catch {
            throw .crypto(error)
        }
    }

    /// encrypted_group_secrets = EncryptWithLabel(init_key, "Welcome", encrypted_group_info, group_secrets),
    /// addressed by the KeyPackageRef.
    public static func encryptGroupSecrets(
        _ groupSecrets: GroupSecrets, to keyPackage: KeyPackage, encryptedGroupInfo: [UInt8], suite: CipherSuite
    ) throws(WelcomeError) -> EncryptedGroupSecrets {
        let prepared: HPKEPreparedInfo
        do { prepared = try suite.prepareEncryptContext(label: groupSecretsLabel, context: encryptedGroupInfo) } catch {
            throw .crypto(error)
        }
        return try encryptGroupSecrets(groupSecrets, to: keyPackage, prepared: prepared, suite: suite)
    }

    static func encryptGroupSecrets(
        _ groupSecrets: GroupSecrets, to keyPackage: KeyPackage, prepared: HPKEPreparedInfo, suite: CipherSuite
    ) throws(WelcomeError) -> EncryptedGroupSecrets {
        guard keyPackage.cipherSuite == suite.rawValue else { throw .cipherSuiteMismatch }
        do {
            let sealed = try suite.encryptWithLabel(
                publicKey: keyPackage.initKey, prepared: prepared, plaintext: groupSecrets.encoded())
            return EncryptedGroupSecrets(
                newMember: suite.makeKeyPackageRef(keyPackage.encoded()),
                encryptedGroupSecrets: HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
        } catch {
            throw .crypto(error)
        }
    }

    static let groupSecretsLabel = "Welcome"
}
