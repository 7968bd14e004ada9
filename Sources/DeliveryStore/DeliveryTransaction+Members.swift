import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Whether `did` holds at least one current leaf.
    public func isMember(convoID: String, did: DID) throws(DeliveryStoreError) -> Bool {
        try memberRole(convoID: convoID, did: did) != nil
    }

    /// `did`'s role, or nil if it holds no current leaf; admin if any of its leaves is.
    public func memberRole(convoID: String, did: DID) throws(DeliveryStoreError) -> MemberRole? {
        try guarded {
            let rows = try connection.query("""
                SELECT bool_or(is_admin) AS admin FROM members WHERE convo_id = $1 AND did = $2 AND left_at IS NULL
                """, [convoID, did])
            guard let admin = try rows.first?.optionalBool("admin") else { return nil }
            return admin ? .admin : .member
        }
    }

    /// The conversation's members by leaf index; with `includeLeft`, also past occupants
    /// (ordered by leaf, then join epoch).
    public func members(convoID: String, includeLeft: Bool = false) throws(DeliveryStoreError) -> [MemberRow] {
        try guarded {
            let rows = try connection.query("""
                SELECT \(MemberRow.columns) FROM members
                WHERE convo_id = $1 AND ($2 OR left_at IS NULL) ORDER BY leaf_index, joined_epoch
                """, [convoID, includeLeft])
            return try rows.map(MemberRow.init(row:))
        }
    }

    /// Grants or revokes admin on every current leaf of `did`; `notMember` if it has none.
    public func setAdmin(convoID: String, did: DID, isAdmin: Bool) throws(DeliveryStoreError) {
        try guarded {
            _ = try lockConvo(convoID)
            let changed = try connection.execute("""
                UPDATE members SET is_admin = $3 WHERE convo_id = $1 AND did = $2 AND left_at IS NULL
                """, [convoID, did, isAdmin])
            guard changed > 0 else { throw DeliveryStoreError.notMember }
        }
    }

    /// Current leaves as MemberLeaf values, for diffing.
    func currentLeaves(_ convoID: String) throws -> [MemberLeaf] {
        let rows = try connection.query("""
            SELECT leaf_index, credential_identity, credential FROM members WHERE convo_id = $1 AND left_at IS NULL
            """, [convoID])
        return try rows.map { row in
            MemberLeaf(leafIndex: try row.leafIndex("leaf_index"), credentialIdentity: try row.string("credential_identity"),
                       credential: try row.bytes("credential"))
        }
    }

    /// Inserts leaves joining at `epoch`; a leaf is admin if `admins` has its DID.
    func insertMembers(_ convoID: String, _ leaves: [MemberLeaf], epoch: Int64, admins: Set<String>) throws {
        guard !leaves.isEmpty else { return }
        try connection.execute("""
            INSERT INTO members (convo_id, leaf_index, joined_epoch, did, credential_identity, credential, is_admin, joined_at)
            SELECT $1, l.leaf_index, $2, l.did, l.identity, l.credential, l.admin, clock_timestamp()
            FROM unnest($3::bigint[], $4::text[], $5::text[], $6::bytea[], $7::boolean[])
                 AS l(leaf_index, did, identity, credential, admin)
            """, [convoID, epoch, PGArray(leaves.map { Int64($0.leafIndex) }), PGArray(leaves.map(\.did)),
                  PGArray(leaves.map(\.credentialIdentity)), PGArray(leaves.map(\.credential)),
                  PGArray(leaves.map { admins.contains($0.did) })])
    }

    /// Writes a member diff computed for the move to `epoch`. A joining leaf whose DID was an
    /// admin before the commit (another device, or the same DID at a new leaf) is an admin.
    func applyMemberDiff(_ convoID: String, _ diff: MemberDiff, epoch: Int64) throws {
        let admins = try connection.query("""
            SELECT DISTINCT did FROM members WHERE convo_id = $1 AND left_at IS NULL AND is_admin
            """, [convoID]).map { try $0.string("did") }
        for departure in diff.departed {
            try connection.execute("""
                UPDATE members SET left_at = clock_timestamp(), left_epoch = $3, left_reason = $4
                WHERE convo_id = $1 AND leaf_index = $2 AND left_at IS NULL
                """, [convoID, Int64(departure.leafIndex), epoch, departure.reason.rawValue])
        }
        for leaf in diff.updated {
            try connection.execute("""
                UPDATE members SET credential_identity = $3, credential = $4
                WHERE convo_id = $1 AND leaf_index = $2 AND left_at IS NULL
                """, [convoID, Int64(leaf.leafIndex), leaf.credentialIdentity, leaf.credential])
        }
        try insertMembers(convoID, diff.joined, epoch: epoch, admins: Set(admins))
    }
}

extension MemberRow {
    static let columns = """
        convo_id, leaf_index, did, credential_identity, credential, is_admin, joined_at, joined_epoch, \
        left_at, left_epoch, left_reason
        """

    init(row: PGRow) throws {
        var reason: DepartureReason?
        if let text = try row.optionalString("left_reason") {
            guard let value = DepartureReason(rawValue: text) else { throw StoreError.decoding("unknown left_reason") }
            reason = value
        }
        self.init(convoID: try row.string("convo_id"), leafIndex: try row.leafIndex("leaf_index"),
                  did: try row.string("did"), credentialIdentity: try row.string("credential_identity"),
                  credential: try row.bytes("credential"), isAdmin: try row.bool("is_admin"),
                  joinedAt: try row.date("joined_at"), joinedEpoch: try row.int64("joined_epoch"),
                  leftAt: try row.optionalDate("left_at"), leftEpoch: try row.optionalInt64("left_epoch"),
                  leftReason: reason)
    }
}
