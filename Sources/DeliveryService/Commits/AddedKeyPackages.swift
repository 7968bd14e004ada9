import MLS

/// What a commit adds and removes, read from its proposal list before anything is verified (issue
/// 14, cheap refusals first): the number of Adds against the member cap, the KeyPackages' refs for
/// the store's lookup and their owners' DIDs for the Welcome.
struct AddedKeyPackages {
    let keyPackages: [KeyPackage]
    /// At most this many members leave: every Remove and every proposal by reference (the only
    /// proposals the service keeps are self-Removes), whether or not they turn out valid.
    let mostRemoved: Int

    var count: Int { keyPackages.count }

    /// 400 TooManyMembers once the Adds alone pass `maxMembers`, before any of them is hashed.
    init(_ commit: Commit, maxMembers: Int) throws(XRPCError) {
        var keyPackages: [KeyPackage] = []
        var removes = 0
        for item in commit.proposals {
            switch item {
            case .proposal(.add(let keyPackage)):
                guard keyPackages.count < maxMembers else {
                    throw XRPCError(400, .tooManyMembers, "a conversation has at most \(maxMembers) members")
                }
                keyPackages.append(keyPackage)
            case .proposal(.remove), .reference:
                removes += 1
            case .proposal:
                continue
            }
        }
        self.keyPackages = keyPackages
        mostRemoved = removes
    }

    /// Each KeyPackage's ref (RFC 9420 §5.2) with the DID its credential names. A package added twice
    /// (§12.2) or a credential that is not a DID is refused here.
    func refs(suite: CipherSuite) throws(XRPCError) -> [(ref: [UInt8], owner: String)] {
        var result: [(ref: [UInt8], owner: String)] = []
        result.reserveCapacity(keyPackages.count)
        var seen = Set<[UInt8]>()
        for keyPackage in keyPackages {
            guard let owner = MemberIdentity.did(of: keyPackage.leafNode.credential) else {
                throw XRPCError(400, .invalidCommit, "an added member's credential is not a DID")
            }
            let ref = keyPackage.reference(suite: suite)
            guard seen.insert(ref).inserted else { throw XRPCError(400, .invalidCommit, "a KeyPackage is added twice") }
            result.append((ref, owner))
        }
        return result
    }
}
