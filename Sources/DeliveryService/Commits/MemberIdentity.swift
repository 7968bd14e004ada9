import ATProto
import Basics
import DeliveryStore
import MLS

/// Members' DIDs come from the validated tree: a leaf's BasicCredential identity is `did` or
/// `did#device` (MLS.md, "What the service validates").
enum MemberIdentity {
    /// The credential identity as text, if it names a valid user DID (with an optional device fragment).
    static func identity(of credential: Credential) -> String? {
        guard case .basic(let identity) = credential, let text = String(validating: identity, as: UTF8.self) else { return nil }
        guard (try? DID(MemberLeaf.did(fromIdentity: text))) != nil else { return nil }
        return text
    }

    static func did(of credential: Credential) -> String? {
        identity(of: credential).map(MemberLeaf.did(fromIdentity:))
    }

    /// `dids` without repeats, in first-seen order.
    static func distinct(_ dids: [String]) -> [String] {
        var seen = Set<String>()
        return dids.filter { seen.insert($0).inserted }
    }

    /// Every occupied leaf as a member row; 400 InvalidCommit when a leaf's credential is not a DID.
    static func memberLeaves(_ members: [GroupMember], error name: XRPCErrorName) throws(XRPCError) -> [MemberLeaf] {
        var leaves: [MemberLeaf] = []
        leaves.reserveCapacity(members.count)
        for member in members {
            guard let identity = identity(of: member.credential) else {
                throw XRPCError(400, name, "leaf \(member.leafIndex) has no BasicCredential naming a DID")
            }
            leaves.append(MemberLeaf(leafIndex: member.leafIndex, credentialIdentity: identity,
                                     credential: member.credential.encoded()))
        }
        return leaves
    }
}
