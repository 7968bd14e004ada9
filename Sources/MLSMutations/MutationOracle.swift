import MLS
import Primitives

/// How one mutant was judged.
public enum MutantOutcome: Sendable, Equatable {
    /// PublicGroup and every member accepted it, reached the same state, and an honest member's
    /// next commit was accepted by all.
    case bothAccept
    /// Both refused; PublicGroup's reason.
    case bothReject(String)
    /// PublicGroup accepted a secret-dependent mutant that a member refused for a reason only a
    /// secret holder can see (what docs/validation.md lists as beyond a public observer).
    case beyondObserver
    /// Anything else: the test fails and names it.
    case disagreement(String)
}

/// The errors by which a member refuses what a public observer cannot see: a MAC, a path secret that
/// does not decrypt or does not match its public key, a PSK it does not hold.
func isSecretOnly(_ error: GroupError) -> Bool {
    switch error {
    case .invalidConfirmationTag, .invalidMembershipTag, .missingPSK: true
    case .tree(.pathSecretDecryptionFailed), .tree(.publicKeyMismatch): true
    default: false
    }
}

extension CommitScenario {
    /// RFC 9420 §12.4.2 on both faces: PublicGroup must accept the mutant if and only if every
    /// member processes it. When all accept, they must agree on the new GroupContext, and a
    /// member's next commit must go through: the group can still be followed.
    public func judge(_ mutant: CommitMutant) -> MutantOutcome {
        let message = try? MLSMessage(decoding: mutant.bytes)
        var next: PublicGroup?
        var publicError = "undecodable"
        if let message {
            do { next = try observer.validateAndApply(commit: message, now: now) } catch { publicError = "\(error)" }
        }
        var accepted: [Group] = []
        var refusals: [GroupError] = []
        for receiver in receivers {
            var member = receiver
            guard let message else { refusals.append(.unexpectedMessage("undecodable")); continue }
            do {
                // The service takes commits only: a member that reads the message as anything
                // else has not processed a commit.
                guard case .commit = try member.process(message, now: now) else {
                    refusals.append(.unexpectedMessage("not a commit"))
                    continue
                }
                accepted.append(member)
            } catch {
                refusals.append(error)
            }
        }
        switch (next, refusals.isEmpty) {
        case (nil, false):
            return .bothReject(publicError)
        case (nil, true):
            return .disagreement("PublicGroup refused (\(publicError)), every member accepted")
        case (.some, false):
            if mutant.secretDependent, refusals.allSatisfy(isSecretOnly) { return .beyondObserver }
            return .disagreement("PublicGroup accepted, members refused: \(refusals.map { "\($0)" }.joined(separator: "; "))")
        case (let state?, true):
            return followUp(after: state, members: accepted)
        }
    }

    /// Every member that is still in the group is in PublicGroup's state; the first of them commits
    /// a self-update, which PublicGroup and the others must accept.
    func followUp(after state: PublicGroup, members: [Group]) -> MutantOutcome {
        let active = members.filter(\.isActive)
        for member in active where member.groupContext != state.groupContext || member.tree != state.tree {
            return .disagreement("member at leaf \(member.ownLeaf) reached another state than PublicGroup")
        }
        guard let first = active.first else { return .bothAccept }
        do {
            let update = try first.update()
            _ = try state.validateAndApply(commit: update.commit, now: now)
            for member in active.dropFirst() {
                var copy = member
                _ = try copy.process(update.commit, now: now)
            }
        } catch {
            return .disagreement("accepted, but the group cannot go on: \(error)")
        }
        return .bothAccept
    }

    /// The members in the new epoch after the original commit (the committer as it became).
    public func membersAfterCommit() throws -> [Group] {
        var result: [Group] = []
        for receiver in receivers {
            var member = receiver
            _ = try member.process(.init(body: .publicMessage(original)), now: now)
            if member.isActive { result.append(member) }
        }
        switch committer {
        case .member(let output): result.append(output.group)
        case .external(let output): result.append(output.group)
        }
        return result
    }

    /// PublicGroup.verify(groupInfo:) against the members: a member accepts a GroupInfo of its
    /// epoch when it carries exactly its GroupContext, confirmation tag and (if present) tree, signed
    /// by a member; and when it offers external_pub, a new client can join with it and every member
    /// accepts that external commit.
    public func judge(_ mutant: GroupInfoMutant, next: PublicGroup, members: [Group]) -> MutantOutcome {
        let info = mutant.groupInfo
        let bytes = MLSMessage(body: .groupInfo(info)).encoded()
        var publicAccepts = false
        var publicError = "undecodable"
        if let decoded = try? MLSMessage(decoding: bytes), case .groupInfo(let received) = decoded.body {
            do {
                try next.verify(groupInfo: received)
                publicAccepts = true
            } catch {
                publicError = "\(error)"
            }
        }
        guard let reference = members.first else { return .disagreement("no member after the commit") }
        var memberAccepts = memberChecks(info, member: reference)
        var secretRefusal = false
        if memberAccepts, info.extensions.contains(where: { $0.extensionType == .externalPub }) {
            switch externalJoin(with: info, members: members) {
            case .accepted: break
            case .refused(let secretOnly):
                memberAccepts = false
                secretRefusal = secretOnly
            }
        }
        switch (publicAccepts, memberAccepts) {
        case (true, true): return .bothAccept
        case (false, false): return .bothReject(publicError)
        case (true, false) where mutant.secretDependent && secretRefusal: return .beyondObserver
        case (true, false): return .disagreement("PublicGroup accepted a GroupInfo members refuse")
        case (false, true): return .disagreement("PublicGroup refused a GroupInfo members accept")
        }
    }

    /// What a member compares with its own state (RFC 9420 §12.4.3).
    func memberChecks(_ info: GroupInfo, member: Group) -> Bool {
        guard !info.extensions.hasDuplicateTypes, info.groupContext == member.groupContext,
              let signer = member.tree.leafNode(at: info.signer),
              (try? info.verifySignature(publicKey: signer.signatureKey, suite: suite)) != nil,
              TranscriptHashes.interim(suite: suite, confirmed: info.groupContext.confirmedTranscriptHash,
                                       confirmationTag: info.confirmationTag) == member.state.interimTranscriptHash
        else { return false }
        if let tree = info.extensions.first(where: { $0.extensionType == .ratchetTree }) {
            return tree.extensionData == member.tree.ratchetTree.encoded()
        }
        return true
    }

    enum JoinResult { case accepted, refused(secretOnly: Bool) }

    /// A new client joins with `info` (the tree given out of band when the GroupInfo lacks it).
    func externalJoin(with info: GroupInfo, members: [Group]) -> JoinResult {
        let hasTree = info.extensions.contains { $0.extensionType == .ratchetTree }
        let join: (group: Group, commit: MLSMessage)
        do {
            join = try Group.joinByExternalCommit(
                groupInfo: info, ratchetTree: hasTree ? nil : members[0].tree.ratchetTree,
                credential: .basic(identity: Array("zed".utf8)), signingKey: try suite.signatureScheme.generatePrivateKey())
        } catch {
            return .refused(secretOnly: false)
        }
        for member in members {
            var copy = member
            do { _ = try copy.process(join.commit, now: now) } catch { return .refused(secretOnly: isSecretOnly(error)) }
        }
        return .accepted
    }
}
