import MLS

/// The service's check of a sealed commit through the GroupInfo of the epoch it creates
/// (`SealedCommitVerifier`), beside `PublicGroup` validating the same change as a PublicMessage.
extension GroupBench {
    static func sealedVerify(members n: Int) throws {
        let sealed = GroupConfiguration(wireFormatPolicy: .pureCiphertext)
        let alice = try Group.create(suite: suite, credential: .basic(identity: Array("alice".utf8)),
                                     signingKey: try suite.signatureScheme.generatePrivateKey(), configuration: sealed)
        let packages = try (1..<n).map { try keyPackage("member-\($0)").keyPackage }
        let rounds = n >= 1000 ? 5 : 20
        let adds = try alice.add(keyPackages: packages)
        let before = SealedCommitVerifier(current: alice.publicGroup)
        try timeIt("add \(n - 1), sealed: verifier (GroupInfo + tree)", rounds) {
            _ = try before.verify(commit: adds.commit, groupInfo: adds.groupInfo)
        }
        let grown = adds.group
        let update = try grown.update()
        let verifier = SealedCommitVerifier(current: grown.publicGroup)
        try timeIt("self-update, \(n) members, sealed: verifier", rounds) {
            _ = try verifier.verify(commit: update.commit, groupInfo: update.groupInfo)
        }
    }
}
