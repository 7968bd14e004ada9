import Foundation
import MLS
import MLSTestSupport

/// The MLS attacks of issue 14 (`MLSTestSupport.MLSAttacks`) as this suite's request bodies.
extension MLSAttacks {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// createConvo for a new group of `creator` whose GroupInfo carries the tree `tree` builds
    /// (`MLSAttacks.groupInfo`), signed by the creator's leaf at `signer`.
    static func createConvo(_ creator: MLSTestUser, tree: (_ creatorLeaf: LeafNode) throws -> RatchetTree, signer: UInt32,
                            validHash: Bool) throws -> [String: Any] {
        let (groupID, groupInfo) = try groupInfo(credential: creator.credential, signingKey: creator.signingKey, tree: tree,
                                                 signer: signer, validHash: validHash)
        return ["groupId": hex(groupID), "cipherSuite": suiteName, "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(groupInfo)))]
    }
}
