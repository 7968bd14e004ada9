import Basics
import DeliveryStore
import MLS

/// Leaves that must each be, byte for byte, the leaf node of a KeyPackage its DID published and has
/// not consumed (docs/validation.md, "Service rules"): createConvo's initial members
/// (`InitialMembers`) and a sealed commit's added leaves (`SealedCommitPipeline`). An Add puts the
/// KeyPackage's leaf node into the tree unchanged (RFC 9420 §12.1.1), so a leaf that no published
/// package carries is fabricated: keys made up under someone's identity.
enum PublishedLeaves {
    struct Match {
        var leaf: UInt32
        var keyPackage: KeyPackage
        var use: KeyPackageUse
    }

    /// Each leaf matched to one of the stored packages `refs` names, read as published (an
    /// MLSMessage or a bare KeyPackage, docs/sealed-commits.md) and owned by the DID of the leaf's
    /// credential. A ref not stored is 404 KeyPackageNotFound; a leaf that none of them carries (or
    /// carries for another DID) is 400 `name`. Whether they are unconsumed is the store's check in
    /// the applying transaction; refs left over are the caller's to judge.
    static func match(_ leaves: [(leaf: UInt32, node: LeafNode)], refs: [[UInt8]], store: DeliveryStore,
                      error name: XRPCErrorName, naming: String) throws -> [Match] {
        // Leaf node bytes → the stored package that carries exactly that leaf.
        var byLeaf: [[UInt8]: (StoredKeyPackage, KeyPackage)] = [:]
        let stored = try store.keyPackages(refs: refs)
        for package in stored {
            guard let keyPackage = try? KeyPackage.decodePublished(package.keyPackage).keyPackage else { continue }
            byLeaf[keyPackage.leafNode.encoded()] = (package, keyPackage)
        }
        let storedRefs = Set(stored.map(\.ref))
        for ref in refs where !storedRefs.contains(ref) { throw DeliveryStoreError.keyPackageNotFound(ref: ref) }

        var matches: [Match] = []
        matches.reserveCapacity(leaves.count)
        for (leaf, node) in leaves {
            guard let (package, keyPackage) = byLeaf.removeValue(forKey: node.encoded()),
                  let did = MemberIdentity.did(of: node.credential), package.ownerDID == did else {
                throw XRPCError(400, name, "leaf \(leaf) is not the leaf node of a KeyPackage its DID published (\(naming))")
            }
            matches.append(Match(leaf: leaf, keyPackage: keyPackage, use: KeyPackageUse(ref: package.ref, ownerDID: did)))
        }
        return matches
    }
}
