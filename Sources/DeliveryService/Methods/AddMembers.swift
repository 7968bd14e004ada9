import Basics
import DeliveryStore
import Lexicon

/// `blue.catbird.mls.addMembers`: a validated commit with Add proposals; consumes the added
/// KeyPackages and stores the Welcome for each new member, in one epoch-guarded transaction.
enum AddMembers {
    typealias Input = AddMembersInput
    typealias Output = AddMembersOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.addMembers", .procedure, maxBodySize: 16 << 20) { context in
            let call = try CommitCall<Input>(context, env: env)
            let (input, convoID, caller) = (call.input, call.convoID, call.caller)
            let role = try CommitAuthorization.role(env, convoID: convoID, did: caller)
            let validated = try call.validate()
            guard !validated.addedDIDs.isEmpty else { throw XRPCError(400, .invalidCommit, "the commit adds no one") }
            try CommitAuthorization.checkRemovals(validated, callerDID: caller.rawValue, isAdmin: role == .admin)
            if let didList = input.didList {
                guard Set(didList) == Set(validated.addedDIDs) else {
                    throw XRPCError(400, .invalidCommit, "didList differs from the members the commit adds")
                }
            }
            if let hashes = input.keyPackageHashes {
                let given = Set(hashes.map { $0.hash.lowercased() })
                guard given == Set(validated.consumedKeyPackages.map { Hex.encode($0.ref) }) else {
                    throw XRPCError(400, .invalidCommit, "keyPackageHashes differ from the KeyPackages the commit adds")
                }
            }
            let current = Set(try env.store.members(convoID: convoID).map(\.did))
            for did in validated.addedDIDs where current.contains(did) && !validated.removedDIDs.contains(did) {
                throw XRPCError.conflict(.alreadyMember, "\(did) is already a member")
            }
            return try call.apply(validated, departures: CommitAuthorization.departures(validated)) { outcome in
                Output(success: true, newEpoch: outcome.newEpoch, addedMembers: validated.addedDIDs)
            }
        }
    }
}
