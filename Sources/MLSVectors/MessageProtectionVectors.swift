import MLS

/// message-protection.json: PublicMessage and PrivateMessage protection for a proposal, a commit
/// and application data, sent by leaf 1 of a 2-leaf secret tree (RFC 9420 §6).
public enum MessageProtectionVectors {
    struct Setup {
        let suite: CipherSuite
        let context: GroupContext
        let signingKey: SignaturePrivateKey
        let signaturePublicKey: [UInt8]
        let encryptionSecret: [UInt8]
        let senderDataSecret: [UInt8]
        let membershipKey: [UInt8]

        func freshTree() throws -> SecretTree {
            try SecretTree(suite: suite, encryptionSecret: encryptionSecret, leafCount: 2)
        }
    }

    static let sender: UInt32 = 1

    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let context = GroupContext(
            cipherSuite: suite.rawValue, groupID: try VectorJSON.hex(testCase, "group_id"),
            epoch: UInt64(try VectorJSON.int(testCase, "epoch")), treeHash: try VectorJSON.hex(testCase, "tree_hash"),
            confirmedTranscriptHash: try VectorJSON.hex(testCase, "confirmed_transcript_hash"))
        let signingKey = try SignaturePrivateKey(scheme: suite.signatureScheme, bytes: try VectorJSON.hex(testCase, "signature_priv"))
        let setup = Setup(
            suite: suite, context: context, signingKey: signingKey,
            signaturePublicKey: try VectorJSON.hex(testCase, "signature_pub"),
            encryptionSecret: try VectorJSON.hex(testCase, "encryption_secret"),
            senderDataSecret: try VectorJSON.hex(testCase, "sender_data_secret"),
            membershipKey: try VectorJSON.hex(testCase, "membership_key"))
        try VectorJSON.expect(signingKey.publicKey.bytes, setup.signaturePublicKey, "signature_pub from signature_priv")

        let proposal = Content.proposal(try Proposal(decoding: try VectorJSON.hex(testCase, "proposal")))
        try checkPublic(setup, proposal, try VectorJSON.hex(testCase, "proposal_pub"), "proposal")
        try checkPrivate(setup, proposal, try VectorJSON.hex(testCase, "proposal_priv"), "proposal")

        let commit = Content.commit(try Commit(decoding: try VectorJSON.hex(testCase, "commit")))
        try checkPublic(setup, commit, try VectorJSON.hex(testCase, "commit_pub"), "commit")
        try checkPrivate(setup, commit, try VectorJSON.hex(testCase, "commit_priv"), "commit")

        let application = Content.application(try VectorJSON.hex(testCase, "application"))
        do {
            _ = try PublicMessage.protect(
                framed(setup, application), signingKey: signingKey, context: context,
                membershipKey: setup.membershipKey, suite: suite)
            throw VectorMismatch("application data was protected as a PublicMessage")
        } catch FramingError.applicationMessageInPublicMessage {
        }
        try checkPrivate(setup, application, try VectorJSON.hex(testCase, "application_priv"), "application")
    }

    static func framed(_ setup: Setup, _ content: Content, authenticatedData: [UInt8] = []) -> FramedContent {
        FramedContent(
            groupID: setup.context.groupID, epoch: setup.context.epoch, sender: .member(leafIndex: sender),
            authenticatedData: authenticatedData, content: content)
    }

    static func checkPublic(_ setup: Setup, _ expected: Content, _ encoded: [UInt8], _ what: String) throws {
        guard case .publicMessage(let message) = try MLSMessage(decoding: encoded).body else {
            throw VectorMismatch("\(what)_pub is not a PublicMessage")
        }
        try VectorJSON.expect(message.content.sender, .member(leafIndex: sender), "\(what)_pub sender")
        let opened = try message.unprotect(
            context: setup.context, membershipKey: setup.membershipKey, signaturePublicKey: setup.signaturePublicKey,
            suite: setup.suite)
        try VectorJSON.expect(opened.content.content, expected, "\(what)_pub content")

        // Our own protection must verify the same way and survive the wire encoding.
        let ours = try PublicMessage.protect(
            framed(setup, expected, authenticatedData: message.content.authenticatedData),
            confirmationTag: message.auth.confirmationTag, signingKey: setup.signingKey, context: setup.context,
            membershipKey: setup.membershipKey, suite: setup.suite)
        guard case .publicMessage(let decoded) = try MLSMessage(decoding: MLSMessage(body: .publicMessage(ours)).encoded()).body else {
            throw VectorMismatch("\(what): own PublicMessage does not decode")
        }
        let reopened = try decoded.unprotect(
            context: setup.context, membershipKey: setup.membershipKey, signaturePublicKey: setup.signaturePublicKey,
            suite: setup.suite)
        try VectorJSON.expect(reopened.content.content, expected, "\(what): own PublicMessage content")
    }

    static func checkPrivate(_ setup: Setup, _ expected: Content, _ encoded: [UInt8], _ what: String) throws {
        guard case .privateMessage(let message) = try MLSMessage(decoding: encoded).body else {
            throw VectorMismatch("\(what)_priv is not a PrivateMessage")
        }
        let lookup: (UInt32) -> [UInt8]? = { $0 == sender ? setup.signaturePublicKey : nil }
        var receiver = try setup.freshTree()
        let opened = try message.unprotect(
            context: setup.context, secretTree: &receiver, senderDataSecret: setup.senderDataSecret, suite: setup.suite,
            signaturePublicKey: lookup)
        try VectorJSON.expect(opened.content.sender, .member(leafIndex: sender), "\(what)_priv sender")
        try VectorJSON.expect(opened.content.content, expected, "\(what)_priv content")

        // Sender and receiver keep separate trees, as two members would.
        var senderTree = try setup.freshTree()
        let ours = try PrivateMessage.protect(
            framed(setup, expected, authenticatedData: message.authenticatedData), confirmationTag: opened.auth.confirmationTag,
            signingKey: setup.signingKey, context: setup.context, secretTree: &senderTree,
            senderDataSecret: setup.senderDataSecret, suite: setup.suite, padding: .toMultiple(of: 32))
        guard case .privateMessage(let decoded) = try MLSMessage(decoding: MLSMessage(body: .privateMessage(ours)).encoded()).body else {
            throw VectorMismatch("\(what): own PrivateMessage does not decode")
        }
        var ourReceiver = try setup.freshTree()
        let reopened = try decoded.unprotect(
            context: setup.context, secretTree: &ourReceiver, senderDataSecret: setup.senderDataSecret, suite: setup.suite,
            signaturePublicKey: lookup)
        try VectorJSON.expect(reopened.content.content, expected, "\(what): own PrivateMessage content")
    }
}
