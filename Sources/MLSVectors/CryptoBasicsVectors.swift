import MLS

/// crypto-basics.json: the labelled operations of RFC 9420 §5 for one suite.
public enum CryptoBasicsVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)

        let refHash = try VectorJSON.object(testCase, "ref_hash")
        try VectorJSON.expect(
            suite.refHash(label: try VectorJSON.string(refHash, "label"), value: try VectorJSON.hex(refHash, "value")),
            try VectorJSON.hex(refHash, "out"), "ref_hash")

        let expand = try VectorJSON.object(testCase, "expand_with_label")
        try VectorJSON.expect(
            try suite.expandWithLabel(
                secret: try VectorJSON.hex(expand, "secret"), label: try VectorJSON.string(expand, "label"),
                context: try VectorJSON.hex(expand, "context"), length: try VectorJSON.int(expand, "length")),
            try VectorJSON.hex(expand, "out"), "expand_with_label")

        let derive = try VectorJSON.object(testCase, "derive_secret")
        try VectorJSON.expect(
            try suite.deriveSecret(secret: try VectorJSON.hex(derive, "secret"), label: try VectorJSON.string(derive, "label")),
            try VectorJSON.hex(derive, "out"), "derive_secret")

        let tree = try VectorJSON.object(testCase, "derive_tree_secret")
        try VectorJSON.expect(
            try suite.deriveTreeSecret(
                secret: try VectorJSON.hex(tree, "secret"), label: try VectorJSON.string(tree, "label"),
                generation: UInt32(try VectorJSON.int(tree, "generation")), length: try VectorJSON.int(tree, "length")),
            try VectorJSON.hex(tree, "out"), "derive_tree_secret")

        try checkSignWithLabel(suite, try VectorJSON.object(testCase, "sign_with_label"))
        try checkEncryptWithLabel(suite, try VectorJSON.object(testCase, "encrypt_with_label"))
    }

    static func checkSignWithLabel(_ suite: CipherSuite, _ vector: [String: Any]) throws {
        let priv = try VectorJSON.hex(vector, "priv")
        let pub = try VectorJSON.hex(vector, "pub")
        let content = try VectorJSON.hex(vector, "content")
        let label = try VectorJSON.string(vector, "label")
        let signature = try VectorJSON.hex(vector, "signature")
        guard suite.verifyWithLabel(publicKey: pub, label: label, content: content, signature: signature) else {
            throw VectorMismatch("sign_with_label: vector signature does not verify")
        }
        let key = try SignaturePrivateKey(scheme: suite.signatureScheme, bytes: priv)
        try VectorJSON.expect(key.publicKey.bytes, pub, "sign_with_label pub from priv")
        let ours = try suite.signWithLabel(key, label: label, content: content)
        guard suite.verifyWithLabel(publicKey: pub, label: label, content: content, signature: ours) else {
            throw VectorMismatch("sign_with_label: own signature does not verify")
        }
        if suite.signatureScheme == .ed25519 || suite.signatureScheme == .ed448 {
            try VectorJSON.expect(ours, signature, "sign_with_label deterministic signature")
        }
        if suite.verifyWithLabel(publicKey: pub, label: label + "x", content: content, signature: signature) {
            throw VectorMismatch("sign_with_label: signature verifies under another label")
        }
    }

    static func checkEncryptWithLabel(_ suite: CipherSuite, _ vector: [String: Any]) throws {
        let priv = try VectorJSON.hex(vector, "priv")
        let pub = try VectorJSON.hex(vector, "pub")
        let label = try VectorJSON.string(vector, "label")
        let context = try VectorJSON.hex(vector, "context")
        let plaintext = try VectorJSON.hex(vector, "plaintext")
        try VectorJSON.expect(try suite.kem.publicKey(privateKey: priv), pub, "encrypt_with_label pub from priv")
        let opened = try suite.decryptWithLabel(
            privateKey: priv, label: label, context: context,
            kemOutput: try VectorJSON.hex(vector, "kem_output"), ciphertext: try VectorJSON.hex(vector, "ciphertext"))
        try VectorJSON.expect(opened, plaintext, "encrypt_with_label plaintext")
        let sealed = try suite.encryptWithLabel(publicKey: pub, label: label, context: context, plaintext: plaintext)
        let reopened = try suite.decryptWithLabel(
            privateKey: priv, label: label, context: context, kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)
        try VectorJSON.expect(reopened, plaintext, "encrypt_with_label round trip")
    }
}

/// The `cipher_suite` field of a case as a supported suite; an unknown suite fails the case.
enum VectorSuite {
    static func suite(_ testCase: [String: Any]) throws -> CipherSuite {
        let id = try VectorJSON.int(testCase, "cipher_suite")
        guard let value = UInt16(exactly: id), let suite = CipherSuite(rawValue: value) else {
            throw VectorMismatch("unsupported cipher_suite \(id)")
        }
        return suite
    }
}
