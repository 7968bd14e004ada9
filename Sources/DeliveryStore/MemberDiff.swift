/// The difference between the current members and the leaves of a new tree, by leaf index.
///
/// A leaf kept by the same DID survives (its credential may change, e.g. by an Update); a leaf
/// whose DID changed, or that disappeared, departs; a new leaf joins. DID-level changes count a
/// DID as joined when it gains its first leaf and as departed when it loses its last one, so
/// adding a second device, or moving a DID to another leaf, changes no DID's membership.
struct MemberDiff: Equatable {
    struct Departure: Equatable {
        var leafIndex: UInt32
        var did: String
        var reason: DepartureReason
    }

    /// Surviving leaves whose identity or credential bytes changed.
    var updated: [MemberLeaf] = []
    var joined: [MemberLeaf] = []
    var departed: [Departure] = []
    var changes: [MembershipChange] = []

    init(
        current: [MemberLeaf], next: [MemberLeaf], departures: [UInt32: DepartureReason], epoch: Int64
    ) throws(DeliveryStoreError) {
        let before = try Self.byLeaf(current, what: "current members")
        let after = try Self.byLeaf(next, what: "new members")
        guard !after.isEmpty else { throw .invalidArgument("a group keeps at least one member") }

        for leaf in current.sorted(by: { $0.leafIndex < $1.leafIndex }) {
            guard let replacement = after[leaf.leafIndex], replacement.did == leaf.did else {
                departed.append(Departure(leafIndex: leaf.leafIndex, did: leaf.did,
                                          reason: departures[leaf.leafIndex] ?? .removed))
                continue
            }
            if replacement != leaf { updated.append(replacement) }
        }
        for leaf in next.sorted(by: { $0.leafIndex < $1.leafIndex }) {
            if let previous = before[leaf.leafIndex], previous.did == leaf.did { continue }
            joined.append(leaf)
        }

        let didsBefore = Set(current.map(\.did))
        let didsAfter = Set(next.map(\.did))
        for did in didsAfter.subtracting(didsBefore) {
            changes.append(MembershipChange(did: did, action: .joined, epoch: epoch))
        }
        for did in didsBefore.subtracting(didsAfter) {
            // A DID that asked to leave with every leaf left; otherwise it was removed.
            let leftVoluntarily = departed.filter { $0.did == did }.allSatisfy { $0.reason == .left }
            changes.append(MembershipChange(did: did, action: leftVoluntarily ? .left : .removed, epoch: epoch))
        }
        changes.sort { $0.did < $1.did }
    }

    private static func byLeaf(_ leaves: [MemberLeaf], what: String) throws(DeliveryStoreError) -> [UInt32: MemberLeaf] {
        var map: [UInt32: MemberLeaf] = [:]
        for leaf in leaves {
            guard map.updateValue(leaf, forKey: leaf.leafIndex) == nil else {
                throw .invalidArgument("\(what) list leaf \(leaf.leafIndex) twice")
            }
            guard !leaf.did.isEmpty else { throw .invalidArgument("leaf \(leaf.leafIndex) has an empty identity") }
        }
        return map
    }
}
