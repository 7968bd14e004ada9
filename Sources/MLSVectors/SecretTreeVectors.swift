import MLS

/// secret-tree.json: the secret tree, both ratchets of every leaf at two generations, and the
/// sender-data key and nonce (RFC 9420 §6.3.2, §9).
public enum SecretTreeVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let senderData = try VectorJSON.object(testCase, "sender_data")
        let derived = try SenderData.keyAndNonce(
            suite: suite, senderDataSecret: try VectorJSON.hex(senderData, "sender_data_secret"),
            ciphertext: try VectorJSON.hex(senderData, "ciphertext"))
        try VectorJSON.expect(derived.key, try VectorJSON.hex(senderData, "key"), "sender_data key")
        try VectorJSON.expect(derived.nonce, try VectorJSON.hex(senderData, "nonce"), "sender_data nonce")

        guard let leaves = try VectorJSON.array(testCase, "leaves") as? [[[String: Any]]] else {
            throw VectorMismatch("leaves is not an array of arrays")
        }
        var tree = try SecretTree(
            suite: suite, encryptionSecret: try VectorJSON.hex(testCase, "encryption_secret"), leafCount: UInt32(leaves.count))
        for (leaf, entries) in leaves.enumerated() {
            for entry in entries {
                let generation = UInt32(try VectorJSON.int(entry, "generation"))
                for (type, name) in [(RatchetType.handshake, "handshake"), (.application, "application")] {
                    let keyNonce = try tree.keyNonce(leaf: UInt32(leaf), type: type, generation: generation)
                    try VectorJSON.expect(keyNonce.key, try VectorJSON.hex(entry, "\(name)_key"), "leaf \(leaf) gen \(generation) \(name)_key")
                    try VectorJSON.expect(keyNonce.nonce, try VectorJSON.hex(entry, "\(name)_nonce"), "leaf \(leaf) gen \(generation) \(name)_nonce")
                }
            }
        }
    }
}
