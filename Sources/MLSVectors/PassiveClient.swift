import MLS

/// The passive-client scenarios (FORMAT.md "Passive Client Scenarios"): join by Welcome, then follow
/// every epoch's proposals and commit, comparing epoch authenticators. Each case is followed twice:
/// by the member (`Group`) and by a secret-less `PublicGroup` built from the Welcome's GroupInfo
/// (decrypted here with init_priv), which must reach the same epoch and tree hash after every
/// commit sent as a PublicMessage.
enum PassiveClient {
    static func run(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: try VectorJSON.hex(testCase, "key_package")).body else {
            throw VectorMismatch("key_package is not a KeyPackage")
        }
        let initPriv = pad(try VectorJSON.hex(testCase, "init_priv"), to: suite.kem.nSk)
        let encryptionPriv = pad(try VectorJSON.hex(testCase, "encryption_priv"), to: suite.kem.nSk)
        let signatureBytes = try VectorJSON.hex(testCase, "signature_priv")
        let signingKey = try SignaturePrivateKey(
            scheme: suite.signatureScheme,
            bytes: suite.signatureScheme == .ecdsaSecp521r1SHA512 ? pad(signatureBytes, to: 66) : signatureBytes)
        try VectorJSON.expect(try suite.kem.publicKey(privateKey: initPriv), keyPackage.initKey, "init_priv matches init_key")
        try VectorJSON.expect(try suite.kem.publicKey(privateKey: encryptionPriv), keyPackage.leafNode.encryptionKey,
                              "encryption_priv matches encryption_key")
        try VectorJSON.expect(signingKey.publicKey.bytes, keyPackage.leafNode.signatureKey, "signature_priv matches signature_key")

        var psks: [[UInt8]: [UInt8]] = [:]
        for case let entry as [String: Any] in try VectorJSON.array(testCase, "external_psks") {
            psks[try VectorJSON.hex(entry, "psk_id")] = try VectorJSON.hex(entry, "psk")
        }
        guard case .welcome(let welcome) = try MLSMessage(decoding: try VectorJSON.hex(testCase, "welcome")).body else {
            throw VectorMismatch("welcome is not a Welcome")
        }
        let ratchetTree = try VectorJSON.optionalHex(testCase, "ratchet_tree").map { bytes throws -> RatchetTree in
            try RatchetTree(decoding: bytes)
        }
        let bundle = KeyPackageBundle(keyPackage: keyPackage, initPrivateKey: initPriv, encryptionPrivateKey: encryptionPriv,
                                      signingKey: signingKey)
        var group = try Group.join(welcome: welcome, keyPackage: bundle, ratchetTree: ratchetTree, externalPSKs: psks)
        try VectorJSON.expect(group.epochAuthenticator, try VectorJSON.hex(testCase, "initial_epoch_authenticator"),
                              "initial_epoch_authenticator")

        let decrypted = try welcome.decrypt(keyPackage: keyPackage, initPrivateKey: initPriv, psk: { id in
            if case .external(let pskID) = id.kind { psks[pskID] } else { nil }
        })
        var observer: PublicGroup? = try PublicGroup(groupInfo: decrypted.groupInfo, ratchetTree: ratchetTree)
        try VectorJSON.expect(observer?.treeHash, group.tree.treeHash, "public group tree hash at join")

        for (index, item) in try VectorJSON.array(testCase, "epochs").enumerated() {
            guard let epoch = item as? [String: Any] else { throw VectorMismatch("epoch \(index) is not an object") }
            for case let hex as String in try VectorJSON.array(epoch, "proposals") {
                let message = try MLSMessage(decoding: try VectorJSON.bytes(fromHex: hex))
                _ = try group.process(message)
                if case .publicMessage(let proposal) = message.body {
                    try observer?.recordProposal(proposal)
                } else {
                    observer = nil
                }
            }
            let commit = try MLSMessage(decoding: try VectorJSON.hex(epoch, "commit"))
            _ = try group.process(commit)
            try VectorJSON.expect(group.epochAuthenticator, try VectorJSON.hex(epoch, "epoch_authenticator"),
                                  "epoch \(index) epoch_authenticator")
            if case .publicMessage(let message) = commit.body, let current = observer {
                let next = try current.validateAndApply(commit: message)
                try VectorJSON.expect(next.epoch, group.epoch, "epoch \(index) public group epoch")
                try VectorJSON.expect(next.treeHash, group.tree.treeHash, "epoch \(index) public group tree hash")
                try VectorJSON.expect(next.groupContext, group.groupContext, "epoch \(index) public group context")
                observer = next
            } else {
                observer = nil
            }
        }
    }

    /// Some vectors drop a leading zero byte of a P-521 scalar (README pitfall 1).
    static func pad(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.count >= length ? bytes : [UInt8](repeating: 0, count: length - bytes.count) + bytes
    }
}
