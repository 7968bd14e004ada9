import Foundation
import Store

/// A service-auth token's `(iss, jti)` pair (AUTH.md check 9), to be remembered until `until` in
/// the same transaction as the write it authorised, so the write and the token's use commit
/// together. A pair already remembered and not yet expired is a replay.
public struct ReplayRecord: Sendable, Hashable {
    public var iss: String
    public var jti: String
    public var until: Date

    public init(iss: String, jti: String, until: Date) {
        self.iss = iss
        self.jti = jti
        self.until = until
    }

    /// Inserts the pair; one row back when it is fresh, none for a replay.
    static let insertSQL = """
        INSERT INTO auth_replay AS r (iss, jti, expires_at) VALUES ($1, $2, $3)
        ON CONFLICT (iss, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE r.expires_at < clock_timestamp()
        RETURNING 1 AS fresh
        """

    /// The pair without its deadline: two records with the same key are the same token.
    var key: [String] { [iss, jti] }
}

extension DeliveryTransaction {
    /// Remembers the token in this transaction; `tokenReplayed` if it is remembered already and
    /// has not expired (a row past its deadline is taken over, as the cleanup would have deleted it).
    public func recordReplay(_ record: ReplayRecord) throws(DeliveryStoreError) {
        let fresh = try guarded {
            try connection.execute(ReplayRecord.insertSQL, [record.iss, record.jti, record.until])
        }
        guard fresh == 1 else { throw .tokenReplayed }
    }
}
