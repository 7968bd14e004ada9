import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Stores a validated KeyPackage. Publishing the same ref again by the same owner while it is
    /// unconsumed is a retry and succeeds with `duplicate` set; a ref stored for another owner or
    /// already consumed is `duplicateKeyPackage`. Beyond `keyPackageLimit` unconsumed, unexpired
    /// packages per owner: `tooManyKeyPackages`. Publishes by one owner are serialized (advisory
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
                WHERE owner_did = $1 AND consumed_at IS NULL AND expires_at > clock_timestamp()
                """, [package.ownerDID, package.expiresAt])
            guard try count[0].bool("in_future") else { throw DeliveryStoreError.invalidArgument("expiresAt is in the past") }
            guard try count[0].int("n") < configuration.keyPackageLimit else {
                throw DeliveryStoreError.tooManyKeyPackages(limit: configuration.keyPackageLimit)
            }
            let inserted = try connection.query("""
                INSERT INTO key_packages (key_package_ref, owner_did, cipher_suite, key_package, credential_identity, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_package_ref) DO NOTHING RETURNING expires_at
                """, [package.ref, package.ownerDID, Int32(package.cipherSuite), package.keyPackage,
                      package.credentialIdentity, package.expiresAt])
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
    /// package, and only the first commit that adds it consumes it.
    public func keyPackages(for dids: [DID], cipherSuite: UInt16? = nil) throws(DeliveryStoreError) -> KeyPackageSelection {
        try guarded {
            var unique: [String] = []
            for did in dids where !unique.contains(did.rawValue) { unique.append(did.rawValue) }
            let rows = try connection.query("""
                SELECT DISTINCT ON (owner_did) \(StoredKeyPackage.columns) FROM key_packages
                WHERE owner_did = ANY($1) AND consumed_at IS NULL AND expires_at > clock_timestamp()
                  AND ($2::integer IS NULL OR cipher_suite = $2)
                ORDER BY owner_did, created_at, key_package_ref
                """, [PGArray(unique), cipherSuite.map { Int32($0) }])
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
                       count(*) FILTER (WHERE consumed_at IS NULL AND expires_at > clock_timestamp()) AS available,
                       count(*) FILTER (WHERE consumed_at IS NOT NULL) AS consumed
                FROM key_packages WHERE owner_did = $1 AND ($2::integer IS NULL OR cipher_suite = $2)
                GROUP BY cipher_suite
                """, [owner, cipherSuite.map { Int32($0) }])
            var stats = KeyPackageStats(available: 0, consumed: 0, byCipherSuite: [:])
            for row in rows {
                let available = try row.int("available")
                stats.available += available
                stats.consumed += try row.int("consumed")
                if available > 0 { stats.byCipherSuite[try row.cipherSuite("cipher_suite")] = available }
            }
            return stats
        }
    }

    /// Deletes packages, consumed or not, whose storage expiry has passed; returns how many.
    public func deleteExpiredKeyPackages() throws(DeliveryStoreError) -> Int {
        try guarded { try connection.execute("DELETE FROM key_packages WHERE expires_at <= clock_timestamp()") }
    }

    /// Locks the packages a commit adds and checks each exists, is unconsumed and belongs to
    /// the DID it is used for. Expiry is not checked: the package's own lifetime is the MLS
    /// layer's check, and one fetched just before its storage expiry may still be committed.
    func checkKeyPackages(_ uses: [KeyPackageUse]) throws {
        guard !uses.isEmpty else { return }
        guard Set(uses.map(\.ref)).count == uses.count else {
            throw DeliveryStoreError.invalidArgument("a key package is used twice")
        }
        // Sorted, so two transactions lock shared packages in the same order.
        let rows = try connection.query("""
            SELECT key_package_ref, owner_did, consumed_at IS NOT NULL AS consumed FROM key_packages
            WHERE key_package_ref = ANY($1) ORDER BY key_package_ref FOR UPDATE
            """, [PGArray(uses.map(\.ref))])
        var stored: [[UInt8]: (owner: String, consumed: Bool)] = [:]
        for row in rows {
            stored[try row.bytes("key_package_ref")] = (try row.string("owner_did"), try row.bool("consumed"))
        }
        for use in uses {
            guard let package = stored[use.ref], !package.consumed else {
                throw DeliveryStoreError.keyPackageNotFound(ref: use.ref)
            }
            guard package.owner == use.ownerDID else { throw DeliveryStoreError.keyPackageOwnerMismatch(ref: use.ref) }
        }
    }

    /// Marks checked packages consumed by a commit in `convoID`.
    func consumeKeyPackages(_ uses: [KeyPackageUse], convoID: String) throws {
        guard !uses.isEmpty else { return }
        try connection.execute("""
            UPDATE key_packages SET consumed_at = clock_timestamp(), consumed_in_convo = $2
            WHERE key_package_ref = ANY($1) AND consumed_at IS NULL
            """, [PGArray(uses.map(\.ref)), convoID])
    }
}

extension StoredKeyPackage {
    static let columns = """
        key_package_ref, owner_did, cipher_suite, key_package, credential_identity, expires_at, created_at, \
        consumed_at, consumed_in_convo
        """

    init(row: PGRow) throws {
        self.init(ref: try row.bytes("key_package_ref"), ownerDID: try row.string("owner_did"),
                  cipherSuite: try row.cipherSuite("cipher_suite"), keyPackage: try row.bytes("key_package"),
                  credentialIdentity: try row.string("credential_identity"), expiresAt: try row.date("expires_at"),
                  createdAt: try row.date("created_at"), consumedAt: try row.optionalDate("consumed_at"),
                  consumedInConvo: try row.optionalString("consumed_in_convo"))
    }
}
