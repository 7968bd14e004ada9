import MLS

/// welcome.json: joining from a Welcome: finding our secrets by KeyPackageRef, decrypting
/// GroupSecrets and GroupInfo, and verifying the signature and confirmation tag (RFC 9420 §12.4.3.1).
public enum WelcomeVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: try VectorJSON.hex(testCase, "key_package")).body else {
            throw VectorMismatch("key_package is not a KeyPackage")
        }
        guard case .welcome(let welcome) = try MLSMessage(decoding: try VectorJSON.hex(testCase, "welcome")).body else {
            throw VectorMismatch("welcome is not a Welcome")
        }
        try VectorJSON.expect(welcome.cipherSuite, suite.rawValue, "welcome cipher_suite")
        let initPrivateKey = try VectorJSON.hex(testCase, "init_priv")
        try VectorJSON.expect(try suite.kem.publicKey(privateKey: initPrivateKey), keyPackage.initKey, "init_priv matches the KeyPackage")

        let decrypted = try welcome.decrypt(keyPackage: keyPackage, initPrivateKey: initPrivateKey)
        let secrets = try decrypted.verify(signerPublicKey: try VectorJSON.hex(testCase, "signer_pub"))
        try VectorJSON.expect(
            try ConfirmationTag.compute(
                suite: suite, confirmationKey: secrets.confirmationKey,
                confirmedTranscriptHash: decrypted.groupInfo.groupContext.confirmedTranscriptHash),
            decrypted.groupInfo.confirmationTag, "confirmation_tag")
    }
}
