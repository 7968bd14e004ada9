import MLS
import Primitives

/// One valid commit made by our `Group`, with everything needed to judge altered copies of it: the
/// public state of the commit's epoch (what the delivery service holds), every member who must
/// process it, the committer's output (to re-frame altered copies as the committer would) and the
/// signature keys the harness owns (to re-sign altered KeyPackages, leaves and GroupInfos as their
/// owners would).
public struct CommitScenario: Sendable {
    public enum Committer: Sendable {
        case member(CommitOutput)
        case external(ExternalCommitOutput)
    }

    public let name: String
    public let suite: CipherSuite
    /// The public state in the commit's epoch, with any standalone proposals recorded.
    public let observer: PublicGroup
    /// Every member in the commit's epoch except the committer.
    public let receivers: [Group]
    public let committer: Committer
    /// The committer's GroupInfo for the new epoch.
    public let groupInfo: GroupInfo
    /// Signature private keys by public key, for every member and KeyPackage the harness made.
    public let signers: [[UInt8]: SignaturePrivateKey]
    /// Seconds since 1970 for KeyPackage lifetimes, the same for every face.
    public let now: UInt64

    /// The commit as made.
    public var original: PublicMessage {
        let message: MLSMessage
        switch committer {
        case .member(let output): message = output.commit
        case .external(let output): message = output.commit
        }
        guard case .publicMessage(let publicMessage) = message.body else { preconditionFailure("commits are PublicMessages") }
        return publicMessage
    }

    public var originalCommit: Commit {
        guard case .commit(let commit) = original.content.content else { preconditionFailure("not a commit") }
        return commit
    }

    /// `content` framed as the committer would have framed it (signature, confirmation tag,
    /// membership tag), as MLSMessage bytes.
    public func resealed(_ content: FramedContent) -> [UInt8] {
        switch committer {
        case .member(let output): output.resealed(content).encoded()
        case .external(let output): output.resealed(content).encoded()
        }
    }

    /// The committer's signature key in the commit's epoch.
    public var committerSigningKey: SignaturePrivateKey? {
        switch original.content.sender {
        case .member(let leaf): observer.tree.leafNode(at: leaf).flatMap { signers[$0.signatureKey] }
        default: originalCommit.path.flatMap { signers[$0.leafNode.signatureKey] }
        }
    }
}

/// Builds the groups of the campaign: named clients with fresh keys, every key kept.
struct Cast {
    let suite: CipherSuite
    let now: UInt64
    private(set) var signers: [[UInt8]: SignaturePrivateKey] = [:]

    init(suite: CipherSuite, now: UInt64) {
        self.suite = suite
        self.now = now
    }

    mutating func signer() throws -> SignaturePrivateKey {
        let key = try suite.signatureScheme.generatePrivateKey()
        signers[key.publicKey.bytes] = key
        return key
    }

    func credential(_ name: String) -> Credential { .basic(identity: Array(name.utf8)) }

    mutating func keyPackage(_ name: String) throws -> KeyPackageBundle {
        try KeyPackageBundle.generate(suite: suite, credential: credential(name), signingKey: try signer(),
                                      lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 86_400 * 30))
    }

    /// `names[0]` creates the group and adds the others in one commit; every member joins. The
    /// observer follows from the creator's GroupInfo. Members are in leaf order.
    mutating func group(_ names: [String]) throws -> (members: [Group], observer: PublicGroup) {
        var creator = try Group.create(suite: suite, credential: credential(names[0]), signingKey: try signer())
        var observer = try PublicGroup(groupInfo: try creator.makeGroupInfo())
        guard names.count > 1 else { return ([creator], observer) }
        let bundles = try names.dropFirst().map { try keyPackage($0) }
        let output = try creator.add(keyPackages: bundles.map(\.keyPackage), now: now)
        observer = try observer.validateAndApply(commit: output.commit, now: now)
        creator = output.group
        let welcome = output.welcome!
        return ([creator] + (try bundles.map { try Group.join(welcome: welcome, keyPackage: $0) }), observer)
    }

    /// Every member but `committer` processes `commit`, the observer too; `committer` takes `output.group`.
    func apply(_ output: CommitOutput, committer: Int, to members: inout [Group], observer: inout PublicGroup) throws {
        for index in members.indices where index != committer {
            _ = try members[index].process(output.commit, now: now)
        }
        members[committer] = output.group
        observer = try observer.validateAndApply(commit: output.commit, now: now)
        members.removeAll { !$0.isActive }
    }

    func scenario(_ name: String, observer: PublicGroup, members: [Group], committer: Int, output: CommitOutput) -> CommitScenario {
        var receivers = members
        receivers.remove(at: committer)
        return CommitScenario(name: name, suite: suite, observer: observer, receivers: receivers,
                              committer: .member(output), groupInfo: output.groupInfo, signers: signers, now: now)
    }
}

extension CommitScenario {
    /// The base commits of the campaign for one suite: adds with and without a path, a removal, a
    /// self-update, external commits (a rejoin that removes the old leaf, and a fresh join), a
    /// pending Remove committed by reference, a commit over a tree with unmerged leaves and one
    /// over a tree with blank leaves, an add together with a removal, and a GroupContextExtensions.
    public static func all(suite: CipherSuite, now: UInt64) throws -> [CommitScenario] {
        var cast = Cast(suite: suite, now: now)
        var result: [CommitScenario] = []

        do {
            let (members, observer) = try cast.group(["alice", "bob", "carol"])
            let added = [try cast.keyPackage("dave"), try cast.keyPackage("erin")].map(\.keyPackage)
            let withPath = try members[0].add(keyPackages: added, now: now)
            result.append(cast.scenario("add", observer: observer, members: members, committer: 0, output: withPath))
            let noPath = try members[0].add(keyPackages: added, includePath: false, now: now)
            result.append(cast.scenario("add-no-path", observer: observer, members: members, committer: 0, output: noPath))
            let gce = try members[0].commit(proposals: [.groupContextExtensions([
                .requiredCapabilities(RequiredCapabilities(credentialTypes: [.basic])),
            ])], includePending: false)
            result.append(cast.scenario("group-context-extensions", observer: observer, members: members, committer: 0, output: gce))
        }
        do {
            let (members, observer) = try cast.group(["alice", "bob", "carol", "dave"])
            result.append(cast.scenario("remove", observer: observer, members: members, committer: 1,
                                        output: try members[1].remove(leaves: [2])))
            let frank = try cast.keyPackage("frank").keyPackage
            result.append(cast.scenario("add-and-remove", observer: observer, members: members, committer: 0,
                                        output: try members[0].commit(proposals: [.remove(removed: 1), .add(frank)],
                                                                      includePending: false, now: now)))
            // Dave asks to leave; Alice commits his Remove by reference.
            var proposing = members
            let proposal = try proposing[3].proposeSelfRemove()
            guard case .publicMessage(let proposalMessage) = proposal.body else { preconditionFailure() }
            var withProposal = observer
            try withProposal.recordProposal(proposalMessage)
            for index in 0..<3 { _ = try proposing[index].process(proposal) }
            result.append(cast.scenario("pending-remove-by-reference", observer: withProposal, members: proposing,
                                        committer: 0, output: try proposing[0].commit()))
            // Dave lost his state and rejoins by external commit, removing his old leaf.
            let rejoin = try Group.externalCommit(
                groupInfo: try members[0].makeGroupInfo(), credential: cast.credential("dave"), signingKey: try cast.signer(),
                removing: 3)
            result.append(CommitScenario(name: "external-rejoin", suite: suite, observer: observer, receivers: members,
                                         committer: .external(rejoin), groupInfo: try rejoin.group.makeGroupInfo(),
                                         signers: cast.signers, now: now))
        }
        do {
            let (members, observer) = try cast.group(["alice", "bob", "carol"])
            let join = try Group.externalCommit(
                groupInfo: try members[1].makeGroupInfo(), credential: cast.credential("frank"), signingKey: try cast.signer())
            result.append(CommitScenario(name: "external-join", suite: suite, observer: observer, receivers: members,
                                         committer: .external(join), groupInfo: try join.group.makeGroupInfo(),
                                         signers: cast.signers, now: now))
        }
        do {
            var (members, observer) = try cast.group(["alice", "bob", "carol", "dave", "erin"])
            result.append(cast.scenario("self-update", observer: observer, members: members, committer: 2,
                                        output: try members[2].update()))
            // Frank and Grace are added without a path: they sit unmerged under the root.
            let bundles = [try cast.keyPackage("frank"), try cast.keyPackage("grace")]
            let output = try members[0].add(keyPackages: bundles.map(\.keyPackage), includePath: false, now: now)
            try cast.apply(output, committer: 0, to: &members, observer: &observer)
            members += try bundles.map { try Group.join(welcome: output.welcome!, keyPackage: $0) }
            result.append(cast.scenario("unmerged-leaves", observer: observer, members: members, committer: 1,
                                        output: try members[1].update()))
        }
        do {
            var (members, observer) = try cast.group(["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"])
            try cast.apply(try members[2].remove(leaves: [1, 5]), committer: 2, to: &members, observer: &observer)
            // Leaves 1 and 5 are blank; the member at leaf 6 (grace) commits a self-update.
            let committer = members.firstIndex { $0.ownLeaf == 6 }!
            result.append(cast.scenario("blank-leaves", observer: observer, members: members, committer: committer,
                                        output: try members[committer].update()))
        }
        return result
    }
}
