import Basics
import Store

extension DeliveryTransaction {
    /// Charges one application message of `storedBytes` ciphertext bytes (0 in thin mode) to its
    /// sender, or throws `messageQuotaExceeded` and charges nothing. Exact under concurrency: the
    /// charge is one UPDATE that re-checks the quota on the row it locks.
    func chargeMessageQuota(sender: String, storedBytes: Int) throws {
        let quota = configuration.messageQuotaBytes
        try connection.execute(MessageQuotaSQL.ensureUsage, [PGArray([sender])])
        let charged = try connection.query(MessageQuotaSQL.chargeOne, [sender, Int32(clamping: storedBytes), quota])
        guard charged.isEmpty else { return }
        let used = try connection.query("SELECT bytes FROM message_usage WHERE did = $1", [sender])
        throw DeliveryStoreError.messageQuotaExceeded(used: try used.first?.int64("bytes") ?? 0, quota: quota)
    }

    /// What `did`'s stored application messages are charged now (0 for a sender never seen).
    public func messageUsage(did: DID) throws(DeliveryStoreError) -> Int64 {
        try guarded {
            try connection.query("SELECT bytes FROM message_usage WHERE did = $1", [did]).first?.int64("bytes") ?? 0
        }
    }
}

extension DeliveryTransaction {
    /// The conversation cap, in createConvo's transaction: serialises one creator's createConvos
    /// (an advisory lock on the DID) and refuses when it already created `maxConvosPerUser`
    /// conversations it still belongs to.
    func checkConvoCap(_ creator: DID) throws {
        try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["convos " + creator.rawValue])
        guard try ownedConvoCount(creator) < configuration.maxConvosPerUser else {
            throw DeliveryStoreError.tooManyConvos(limit: configuration.maxConvosPerUser)
        }
    }

    /// Conversations `did` created and is still a member of: what MAX_CONVOS_PER_USER caps. Being
    /// added by others does not count, so no one can fill another user's allowance.
    public func ownedConvoCount(_ did: DID) throws(DeliveryStoreError) -> Int {
        try guarded {
            try connection.query("""
                SELECT count(*) AS n FROM convos c
                WHERE c.creator_did = $1
                  AND EXISTS (SELECT 1 FROM members m WHERE m.convo_id = c.convo_id AND m.did = $1 AND m.left_at IS NULL)
                """, [did])[0].int("n")
        }
    }

    /// The use limits for a commit by `consumer` that adds `counted` packages per owner (all, and
    /// the one-time ones among them). Uses of one owner's packages are serialised on an advisory
    /// lock per owner, taken in DID order (after the package rows, which every commit locks in ref
    /// order), so concurrent commits cannot pass a limit together.
    func checkKeyPackageUseLimits(_ counted: [String: (all: Int, oneTime: Int)], consumer: DID) throws {
        let owners = counted.keys.sorted()
        for owner in owners {
            try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["key_package_uses " + owner])
        }
        let limits = configuration.keyPackageUses
        let rows = try connection.query("""
            WITH recent AS (
                SELECT owner_did, consumer_did, last_resort,
                       ceil(extract(epoch FROM used_at + make_interval(secs => $3) - clock_timestamp()))::int8 AS frees_in
                FROM key_package_uses
                WHERE owner_did = ANY($1) AND used_at > clock_timestamp() - make_interval(secs => $3)
            )
            SELECT owner_did,
                   count(*) FILTER (WHERE consumer_did = $2) AS mine,
                   min(frees_in) FILTER (WHERE consumer_did = $2) AS mine_frees_in,
                   count(*) FILTER (WHERE NOT last_resort) AS one_time,
                   min(frees_in) FILTER (WHERE NOT last_resort) AS one_time_frees_in
            FROM recent GROUP BY owner_did
            """, [PGArray(owners), consumer, limits.window])
        var recent: [String: PGRow] = [:]
        for row in rows { recent[try row.string("owner_did")] = row }
        let window = Int(limits.window.rounded(.up))
        for owner in owners {
            let adding = counted[owner]!
            let row = recent[owner]
            let mine = try row?.int("mine") ?? 0
            if mine + adding.all > limits.perRequester {
                let wait = try row?.optionalInt64("mine_frees_in").map(Int.init) ?? window
                throw DeliveryStoreError.tooManyKeyPackageUses(owner: owner, retryAfter: max(1, wait))
            }
            let oneTime = try row?.int("one_time") ?? 0
            if adding.oneTime > 0, oneTime + adding.oneTime > limits.perTarget {
                let wait = try row?.optionalInt64("one_time_frees_in").map(Int.init) ?? window
                throw DeliveryStoreError.tooManyKeyPackageUses(owner: owner, retryAfter: max(1, wait))
            }
        }
    }
}

extension DeliveryStore {
    public func ownedConvoCount(_ did: DID) throws(DeliveryStoreError) -> Int {
        try run { transaction throws(DeliveryStoreError) in try transaction.ownedConvoCount(did) }
    }

    public func messageUsage(did: DID) throws(DeliveryStoreError) -> Int64 {
        try run { transaction throws(DeliveryStoreError) in try transaction.messageUsage(did: did) }
    }
}
