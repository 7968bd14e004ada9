import Primitives

/// RFC 9420 §12.2 and §12.4.3.2: the rules on the list of proposals a commit covers that can be
/// checked before anything is applied. What needs the tree as it is being changed (duplicate
/// members, key uniqueness, capabilities) is checked in `ProposalApplication`.
extension GroupState {
    /// Looks each reference up in this epoch's cache; an inline proposal's sender is the committer.
    func resolve(_ proposals: [ProposalOrRef], committer: Sender) throws(GroupError) -> [ResolvedProposal] {
        var resolved: [ResolvedProposal] = []
        resolved.reserveCapacity(proposals.count)
        var index: [[UInt8]: Int]? = nil
        for entry in proposals {
            switch entry {
            case .proposal(let proposal):
                resolved.append(ResolvedProposal(proposal: proposal, sender: committer, ref: nil))
            case .reference(let ref):
                if index == nil, self.proposals.count > 8 {
                    index = Dictionary(self.proposals.enumerated().map { ($1.ref, $0) }, uniquingKeysWith: { a, _ in a })
                }
                let cached: CachedProposal?
                if let index { cached = index[ref].map { self.proposals[$0] } } else { cached = cachedProposal(ref: ref) }
                guard let cached else { throw .unknownProposalReference(ref) }
                resolved.append(ResolvedProposal(proposal: cached.proposal, sender: cached.sender, ref: ref))
            }
        }
        return resolved
    }

    /// The list-level rules. `committer` is the commit's sender.
    func validateList(_ proposals: [ResolvedProposal], committer: Sender, inlineOnly: Bool) throws(GroupError) {
        var changedLeaves = Set<UInt32>()
        var pskIDs = Set<PreSharedKeyID.Kind>()
        var gceCount = 0
        var reInitCount = 0
        var externalInitCount = 0
        var removeCount = 0
        let committerLeaf: UInt32? = if case .member(let leaf) = committer { leaf } else { nil }

        for entry in proposals {
            if committerLeaf != nil || entry.ref != nil {
                try Self.checkProposalSender(entry.proposal, sender: entry.sender)
            }
            switch entry.proposal {
            case .add:
                break
            case .update:
                guard case .member(let leaf) = entry.sender else { throw .senderNotAllowed(entry.sender, .update) }
                guard leaf != committerLeaf else { throw .invalidProposalList(.updateByCommitter) }
                guard changedLeaves.insert(leaf).inserted else { throw .invalidProposalList(.multipleChangesToLeaf(leaf)) }
            case .remove(let removed):
                removeCount += 1
                guard tree.leafNode(at: removed) != nil else { throw .invalidProposalList(.removeOfBlankLeaf(removed)) }
                guard removed != committerLeaf else { throw .invalidProposalList(.committerRemoved) }
                guard changedLeaves.insert(removed).inserted else {
                    throw .invalidProposalList(.multipleChangesToLeaf(removed))
                }
            case .preSharedKey(let id):
                // RFC 9420 §8.4: a fresh nonce of Nh bytes; §12.2: each PSK at most once.
                guard id.pskNonce.count == suite.nh else { throw .invalidProposal(.psk, "psk_nonce is not Nh bytes") }
                if case .resumption(let usage, _, _) = id.kind, usage != .application {
                    throw .invalidProposal(.psk, "resumption usage other than application")
                }
                guard pskIDs.insert(id.kind).inserted else { throw .invalidProposalList(.duplicatePSK) }
            case .reInit(let reInit):
                reInitCount += 1
                guard reInit.version.rawValue >= context.version.rawValue else {
                    throw .invalidProposal(.reinit, "version older than the group's")
                }
            case .externalInit(let kemOutput):
                externalInitCount += 1
                // RFC 9420 §8.3: every member decapsulates it (RFC 9180 §7.1.4: an invalid `enc` fails).
                guard suite.kem.isValidEncapsulatedKey(kemOutput) else {
                    throw .invalidProposal(.externalInit, "kem_output is not a valid encapsulated key")
                }
            case .groupContextExtensions(let extensions):
                gceCount += 1
                try Self.checkContextExtensions(extensions)
            }
        }
        guard gceCount <= 1 else { throw .invalidProposalList(.multipleGroupContextExtensions) }
        guard reInitCount == 0 || proposals.count == 1 else { throw .invalidProposalList(.reInitNotAlone) }

        if committerLeaf != nil {
            guard externalInitCount == 0 else { throw .invalidProposalList(.externalInitNotAllowed) }
        } else {
            // RFC 9420 §12.4.3.2: exactly one ExternalInit, at most one Remove, PSKs, nothing else, all inline.
            guard !inlineOnly || proposals.allSatisfy({ $0.ref == nil }) else {
                throw .invalidExternalCommit("proposals by reference")
            }
            guard externalInitCount == 1 else { throw .invalidExternalCommit("needs exactly one ExternalInit") }
            guard removeCount <= 1 else { throw .invalidExternalCommit("more than one Remove") }
            for entry in proposals {
                switch entry.proposal {
                case .externalInit, .remove, .preSharedKey: continue
                default: throw .invalidExternalCommit("proposal type \(entry.proposal.proposalType.rawValue)")
                }
            }
        }
    }
}
