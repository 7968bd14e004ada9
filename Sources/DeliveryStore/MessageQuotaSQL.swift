/// The statements around `message_usage`, each sender's charge for its stored application
/// messages (migration 0011: `message_quota_charge` = stored ciphertext bytes + 256 per message).
/// Every writer takes a sender's row lock before it reads the row's bytes, in DID order, after the
/// conversation locks: appends charge under it, the retention purge gives back under it, and
/// concurrent appends by one sender (in other conversations, other batches) cannot pass the quota
/// together.
enum MessageQuotaSQL {
    /// Creates the missing rows of `$1` (sorted DIDs, so two inserters meet in one order).
    static let ensureUsage = """
        INSERT INTO message_usage (did) SELECT d FROM unnest($1::text[]) d ORDER BY d ON CONFLICT (did) DO NOTHING
        """

    /// Locks the rows of `$1` in DID order; a statement of its own, so that the next statement's
    /// snapshot sees the values the locks protect (including rows another inserter just committed).
    static let lockUsage = """
        SELECT did FROM message_usage WHERE did = ANY($1::text[]) ORDER BY did FOR NO KEY UPDATE
        """

    /// One message of `$2` stored bytes for sender `$1` against quota `$3`: charged if it fits, and
    /// the row's new total returned; no row if it does not fit. The UPDATE's row lock and its
    /// re-check on the newest row version make it exact under concurrency.
    static let chargeOne = """
        UPDATE message_usage SET bytes = bytes + message_quota_charge($2)
        WHERE did = $1 AND bytes + message_quota_charge($2) <= $3 RETURNING bytes
        """

    /// Gives back the charges of purged messages: `$1` DIDs, `$2` bytes (after `lockUsage`).
    static let refund = """
        UPDATE message_usage u SET bytes = greatest(0, u.bytes - d.bytes)
        FROM unnest($1::text[], $2::int8[]) AS d(did, bytes) WHERE u.did = d.did
        """
}
