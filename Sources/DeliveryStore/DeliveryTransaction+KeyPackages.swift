import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Stores a validated KeyPackage. Publishing the same ref again by the same owner while it is
    /// unconsumed is a retry and succeeds with `duplicate` set (as first stored, last-resort or
    /// not); a ref stored for another owner or
    /// already consumed is `duplicateKeyPackage`. Beyond `keyPackageLimit` unconsumed, unexpired
    /// one-time packages per owner: `tooManyKeyPackages`. A last-resort package (RFC 9750 §5.1)
    /// replaces the owner's previous one of its suite and does not count against the limit.
    /// Publishes by one owner are serialized (advisory
    /// lock on the owner) so concurrent ones cannot pass the limit together.
    public func publishKeyPackage(_ package: NewKeyPackage) throws(DeliveryStoreError) -> PublishedKeyPackage {
        try guarded {
            guard !package.ref.isEmpty, !package.keyPackage.isEmpty else {
                throw DeliveryStoreError.invalidArgument("empty key package or ref")
            }
            try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", ["key_packages " + package.ownerDID.rawValue])
            let existing = try connection.query("""
                SELECT owner_did, consumed_at, expires_at FROM key_packages WHERE key_package_ref = $1
                """, [package.ref])
            if let row = existing.first {
                guard try row.string("owner_did") == package.ownerDID.rawValue, try row.isNull("consumed_at") else {
                    throw DeliveryStoreError.duplicateKeyPackage
                }
                return PublishedKeyPackage(ref: package.ref, expiresAt: try row.date("expires_at"), duplicate: true)
            }
            let count = try connection.query("""
                SELECT count(*) AS n, $2 > clock_timestamp() AS in_future FROM key_packages
                WHERE owner_did = $1 AND consumed_at IS NULL AND NOT last_resort AND expires_at > clock_timestamp()
                """, [package.ownerDID, package.expiresAt])
            guard try count[0].bool("in_future") else { throw DeliveryStoreError.invalidArgument("expiresAt is in the past") }
            if package.lastResort {
                try connection.execute("DELETE FROM key_packages WHERE owner_did = $1 AND cipher_suite = $2 AND last_resort",
                                       [package.ownerDID, Int32(package.cipherSuite)])
            } else {
                guard try count[0].int("n") < configuration.keyPackageLimit else {
                    throw DeliveryStoreError.tooManyKeyPackages(limit: configuration.keyPackageLimit)
                }
            }
            let inserted = try connection.query("""
                INSERT INTO key_packages (key_package_ref, owner_did, cipher_suite, key_package, credential_identity, expires_at,
                                          last_resort)
                VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key_package_ref) DO NOTHING RETURNING expires_at
                """, [package.ref, package.ownerDID, Int32(package.cipherSuite), package.keyPackage,
                      package.credentialIdentity, package.expiresAt, package.lastResort])
            // Another owner stored the same ref concurrently (it is not serialized by our lock).
            guard let row = inserted.first else { throw DeliveryStoreError.duplicateKeyPackage }
            return PublishedKeyPackage(ref: package.ref, expiresAt: try row.date("expires_at"), duplicate: false)
        }
    }

    /// Publishes several packages; each fails or succeeds alone (a failed one writes nothing).
    public func publishKeyPackages(_ packages: [NewKeyPackage]) -> [Result<PublishedKeyPackage, DeliveryStoreError>] {
        packages.map { package in Result { () throws(DeliveryStoreError) in try publishKeyPackage(package) } }
    }

    /// One unconsumed, unexpired package per DID (the oldest, so packages are used before they
    /// expire), optionally of one suite. Does not consume: concurrent callers may get the same
    /// package, and only the first commit that adds it consumes it. The owner's last-resort package
    /// only when it has no one-time package left, or when its one-time packages were consumed
    /// `keyPackageUses.perTarget` times within the window (RFC 9750 §5.1); an owner without one is
    /// then still served a one-time package, whose commit is refused until the window moves on
    /// (`tooManyKeyPackageUses` tells the committer when).
    public func keyPackages(for dids: [DID], cipherSuite: UInt16? = nil) throws(DeliveryStoreError) -> KeyPackageSelection {
        try guarded {
            var unique: [String] = []
            for did in dids where !unique.contains(did.rawValue) { unique.append(did.rawValue) }
            let limits = configuration.keyPackageUses
            let rows = try connection.query("""
                WITH drained AS (
                    SELECT owner_did FROM key_package_uses
                    WHERE owner_did = ANY($1) AND NOT last_resort AND used_at > clock_timestamp() - make_interval(secs => $3)
                    GROUP BY owner_did HAVING count(*) >= $4
                )
                SELECT DISTINCT ON (owner_did) \(StoredKeyPackage.columns) FROM key_packages
                WHERE owner_did = ANY($1) AND consumed_at IS NULL AND expires_at > clock_timestamp()
                  AND ($2::integer IS NULL OR cipher_suite = $2)
                ORDER BY owner_did,
                         CASE WHEN owner_did IN (SELECT owner_did FROM drained) THEN NOT last_resort ELSE last_resort END,
                         created_at, key_package_ref
                """, [PGArray(unique), cipherSuite.map { Int32($0) }, limits.window, Int64(limits.perTarget)])
            var byOwner: [String: StoredKeyPackage] = [:]
            for row in rows {
                let package = try StoredKeyPackage(row: row)
                byOwner[package.ownerDID] = package
            }
            return KeyPackageSelection(packages: unique.compactMap { byOwner[$0] },
                                       missing: unique.filter { byOwner[$0] == nil })
        }
    }

    /// Which of `refs` are stored and not yet consumed: packages the service validated in full at
    /// publication, whose signatures need not be checked again when a commit adds them.
    public func unconsumedKeyPackageRefs(_ refs: [[UInt8]]) throws(DeliveryStoreError) -> Set<[UInt8]> {
        if refs.isEmpty { return [] }
        return try guarded {
            let rows = try connection.query(
                "SELECT key_package_ref FROM key_packages WHERE key_package_ref = ANY($1) AND consumed_at IS NULL",
                [PGArray(refs)])
            return Set(try rows.map { try $0.bytes("key_package_ref") })
        }
    }

    /// The stored package with this ref, consumed or not.
    public func keyPackage(ref: [UInt8]) throws(DeliveryStoreError) -> StoredKeyPackage? {
        try guarded {
            let rows = try connection.query("SELECT \(StoredKeyPackage.columns) FROM key_packages WHERE key_package_ref = $1",
                                            [ref])
            return try rows.first.map(StoredKeyPackage.init(row:))
        }
    }

    /// The stored packages with these refs, consumed or not, in one query (unknown refs are absent).
    public func keyPackages(refs: [[UInt8]]) throws(DeliveryStoreError) -> [StoredKeyPackage] {
        if refs.isEmpty { return [] }
        return try guarded {
            let rows = try connection.query(
                "SELECT \(StoredKeyPackage.columns) FROM key_packages WHERE key_package_ref = ANY($1)", [PGArray(refs)])
            return try rows.map(StoredKeyPackage.init(row:))
        }
    }

    /// Counts for one owner, optionally for one suite.
    public func keyPackageStats(owner: DID, cipherSuite: UInt16? = nil) throws(DeliveryStoreError) -> KeyPackageStats {
        try guarded {
            let rows = try connection.query("""
                SELECT cipher_suite,
                       count(*) FILTER (WHERE consumed_at IS NULL AND NOT last_resort AND expires_at > clock_timestamp()) AS available,
                       count(*) FILTER (WHERE consumed_at IS NOT NULL) AS consumed,
                       count(*) FILTER (WHERE last_resort AND expires_at > clock_timestamp()) AS last_resort
                FROM key_packages WHERE owner_did = $1 AND ($2::integer IS NULL OR cipher_suite = $2)
                GROUP BY cipher_suite
                """, [owner, cipherSuite.map { Int32($0) }])
            var stats = KeyPackageStats(available: 0, consumed: 0, byCipherSuite: [:])
            for row in rows {
                let available = try row.int("available")
                stats.available += available
                stats.consumed += try row.int("consumed")
                if try row.int("last_resort") > 0 { stats.lastResortSuites.insert(try row.cipherSuite("cipher_suite")) }
                if available > 0 { stats.byCipherSuite[try row.cipherSuite("cipher_suite")] = available }
            }
            return stats
        }
    }

    /// Deletes packages, consumed or not, whose storage expiry has passed, and the records of
    /// package uses older than the use-limit window; returns how many rows.
    public func deleteExpiredKeyPackages() throws(DeliveryStoreError) -> Int {
        try guarded {
            try connection.execute("DELETE FROM key_packages WHERE expires_at <= clock_timestamp()")
                + connection.execute("DELETE FROM key_package_uses WHERE used_at <= clock_timestamp() - make_interval(secs => $1)",
                                     [configuration.keyPackageUses.window])
        }
    }

    /// Locks the packages a commit by `consumer` adds and checks each exists, is unconsumed and
    /// belongs to the DID it is used for, then that the uses fit `keyPackageUses`
    /// (`tooManyKeyPackageUses`). Expiry is not checked: the package's own lifetime is the MLS
    /// layer's check, and one fetched just before its storage expiry may still be committed.
    func checkKeyPackages(_ uses: [KeyPackageUse], by consumer: DID) throws {
        guard !uses.isEmpty else { return }
        guard Set(uses.map(\.ref)).count == uses.count else {
            throw DeliveryStoreError.invalidArgument("a key package is used twice")
        }
        // Sorted, so two transactions lock shared packages in the same order.
        let rows = try connection.query("""
            SELECT key_package_ref, owner_did, consumed_at IS NOT NULL AS consumed, last_resort FROM key_packages
            WHERE key_package_ref = ANY($1) ORDER BY key_package_ref FOR UPDATE
            """, [PGArray(uses.map(\.ref))])
        var stored: [[UInt8]: (owner: String, consumed: Bool, lastResort: Bool)] = [:]
        for row in rows {
            stored[try row.bytes("key_package_ref")] = (try row.string("owner_did"), try row.bool("consumed"),
                                                        try row.bool("last_resort"))
        }
        var counted: [String: (all: Int, oneTime: Int)] = [:]
        for use in uses {
            guard let package = stored[use.ref], !package.consumed else {
                throw DeliveryStoreError.keyPackageNotFound(ref: use.ref)
            }
            guard package.owner == use.ownerDID else { throw DeliveryStoreError.keyPackageOwnerMismatch(ref: use.ref) }
            counted[use.ownerDID, default: (0, 0)].all += 1
            if !package.lastResort { counted[use.ownerDID, default: (0, 0)].oneTime += 1 }
        }
        try checkKeyPackageUseLimits(counted, consumer: consumer)
    }

    /// Marks the checked one-time packages consumed by a commit in `convoID` (a last-resort package
    /// stays, RFC 9420 §16.8), and records every use for the use limits.
    func consumeKeyPackages(_ uses: [KeyPackageUse], by consumer: DID, convoID: String) throws {
        guard !uses.isEmpty else { return }
        let refs = PGArray(uses.map(\.ref))
        try connection.execute("""
            UPDATE key_packages SET consumed_at = clock_timestamp(), consumed_in_convo = $2
            WHERE key_package_ref = ANY($1) AND consumed_at IS NULL AND NOT last_resort
            """, [refs, convoID])
        try connection.execute("""
            INSERT INTO key_package_uses (owner_did, consumer_did, last_resort)
            SELECT owner_did, $2, last_resort FROM key_packages WHERE key_package_ref = ANY($1)
            """, [refs, consumer])
    }
}

extension StoredKeyPackage {
    static let columns = """
        key_package_ref, owner_did, cipher_suite, key_package, credential_identity, expires_at, created_at, \
        consumed_at, consumed_in_convo, last_resort
        """

    init(row: PGRow) throws {
        self.init(ref: try row.bytes("key_package_ref"), ownerDID: try row.string("owner_did"), lastResort: try row.bool("last_resort"),
                  cipherSuite: try row.cipherSuite("cipher_suite"), keyPackage: try row.bytes("key_package"),
                  credentialIdentity: try row.string("credential_identity"), expiresAt: try row.date("expires_at"),
                  createdAt: try row.date("created_at"), consumedAt: try row.optionalDate("consumed_at"),
                  consumedInConvo: try row.optionalString("consumed_in_convo"))
    }
}
