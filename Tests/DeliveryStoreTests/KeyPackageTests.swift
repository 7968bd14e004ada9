import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class KeyPackageTests: StoreTestCase {
    override var configuration: DeliveryStore.Configuration { .init(keyPackageLimit: 5) }

    func test_publish_storesAndIsIdempotentForTheSameOwner() throws {
        let package = keyPackage("alice", suite: 2)
        let first = try store.publishKeyPackage(package)
        XCTAssertFalse(first.duplicate)
        XCTAssertEqual(first.ref, package.ref)
        XCTAssertEqual(first.expiresAt.timeIntervalSince1970, package.expiresAt.timeIntervalSince1970, accuracy: 1e-5)
        let stored = try XCTUnwrap(store.keyPackage(ref: package.ref))
        XCTAssertEqual(stored.ownerDID, did("alice"))
        XCTAssertEqual(stored.cipherSuite, 2)
        XCTAssertEqual(stored.keyPackage, package.keyPackage)
        XCTAssertEqual(stored.credentialIdentity, did("alice"))
        XCTAssertNil(stored.consumedAt)

        XCTAssertTrue(try store.publishKeyPackage(package).duplicate)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM key_packages"), 1)
        var stolen = package
        stolen.ownerDID = user("mallory")
        XCTAssertEqual(deliveryError { try store.publishKeyPackage(stolen) }, .duplicateKeyPackage)
        XCTAssertNil(try store.keyPackage(ref: [0]))

        var expired = keyPackage("alice")
        expired.expiresAt = Date().addingTimeInterval(-60)
        XCTAssertEqual(deliveryError { try store.publishKeyPackage(expired) }, .invalidArgument("expiresAt is in the past"))
    }

    func test_perOwnerCap_countsOnlyAvailablePackages() throws {
        for _ in 0..<5 { _ = try store.publishKeyPackage(keyPackage("alice")) }
        XCTAssertEqual(deliveryError { try store.publishKeyPackage(keyPackage("alice")) }, .tooManyKeyPackages(limit: 5))
        XCTAssertFalse(try store.publishKeyPackage(keyPackage("bob")).duplicate, "the cap is per owner")

        // Consuming one frees a slot.
        let oldest = try XCTUnwrap(store.keyPackages(for: [user("alice")]).packages.first)
        _ = try makeConvoConsuming(oldest, owner: "alice")
        XCTAssertFalse(try store.publishKeyPackage(keyPackage("alice")).duplicate)
        XCTAssertEqual(deliveryError { try store.publishKeyPackage(keyPackage("alice")) }, .tooManyKeyPackages(limit: 5))
        // So does expiry.
        try fixture.database.execute("""
            UPDATE key_packages SET expires_at = now() - interval '1 minute'
            WHERE key_package_ref = (SELECT key_package_ref FROM key_packages
                                     WHERE owner_did = $1 AND consumed_at IS NULL ORDER BY created_at LIMIT 1)
            """, [did("alice")])
        XCTAssertFalse(try store.publishKeyPackage(keyPackage("alice")).duplicate)
    }

    func test_concurrentPublishes_neverPassTheCap() throws {
        let store = self.store
        let packages = (0..<12).map { _ in keyPackage("alice") }
        let outcomes = Locked<[DeliveryStoreError?]>([])
        runOnThreads(12) { index in
            do {
                _ = try store.publishKeyPackage(packages[index])
                outcomes.withLock { $0.append(nil) }
            } catch {
                outcomes.withLock { $0.append(error as? DeliveryStoreError ?? .invalidArgument("\(error)")) }
            }
        }
        XCTAssertEqual(outcomes.value.filter { $0 == nil }.count, 5)
        XCTAssertEqual(outcomes.value.compactMap { $0 }, Array(repeating: .tooManyKeyPackages(limit: 5), count: 7))
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM key_packages"), 5)
    }

    func test_fetch_givesTheOldestPerOwner_withoutConsuming() throws {
        let a1 = keyPackage("alice"), a2 = keyPackage("alice"), a3 = keyPackage("alice", suite: 2), b1 = keyPackage("bob")
        for package in [a1, a2, a3, b1] { _ = try store.publishKeyPackage(package) }

        let selection = try store.keyPackages(for: [user("bob"), user("alice"), user("carol"), user("alice")])
        XCTAssertEqual(selection.packages.map(\.ref), [b1.ref, a1.ref], "request order, one per DID, oldest first")
        XCTAssertEqual(selection.missing, [did("carol")])
        XCTAssertEqual(try store.keyPackages(for: [user("alice")]).packages.map(\.ref), [a1.ref], "fetching consumes nothing")
        XCTAssertEqual(try store.keyPackages(for: [user("alice")], cipherSuite: 2).packages.map(\.ref), [a3.ref])
        XCTAssertEqual(try store.keyPackages(for: [user("bob")], cipherSuite: 2).missing, [did("bob")])
        XCTAssertEqual(try store.keyPackages(for: []), KeyPackageSelection(packages: [], missing: []))

        // Once a1 is consumed the next oldest is handed out; once expired, a package is skipped.
        _ = try makeConvoConsuming(try XCTUnwrap(store.keyPackage(ref: a1.ref)), owner: "alice")
        XCTAssertEqual(try store.keyPackages(for: [user("alice")]).packages.map(\.ref), [a2.ref])
        try fixture.database.execute("UPDATE key_packages SET expires_at = now() - interval '1 second' WHERE key_package_ref = $1",
                                     [a2.ref])
        XCTAssertEqual(try store.keyPackages(for: [user("alice")]).packages.map(\.ref), [a3.ref])
    }

    func test_stats_andExpiryCleanup() throws {
        let a1 = keyPackage("alice"), a2 = keyPackage("alice"), a3 = keyPackage("alice", suite: 7)
        for package in [a1, a2, a3] { _ = try store.publishKeyPackage(package) }
        _ = try makeConvoConsuming(try XCTUnwrap(store.keyPackage(ref: a1.ref)), owner: "alice")

        XCTAssertEqual(try store.keyPackageStats(owner: user("alice")),
                       KeyPackageStats(available: 2, consumed: 1, byCipherSuite: [1: 1, 7: 1]))
        XCTAssertEqual(try store.keyPackageStats(owner: user("alice"), cipherSuite: 7),
                       KeyPackageStats(available: 1, consumed: 0, byCipherSuite: [7: 1]))
        XCTAssertEqual(try store.keyPackageStats(owner: user("nobody")),
                       KeyPackageStats(available: 0, consumed: 0, byCipherSuite: [:]))

        try fixture.database.execute("UPDATE key_packages SET expires_at = now() - interval '1 second' WHERE key_package_ref = $1",
                                     [a2.ref])
        XCTAssertEqual(try store.keyPackageStats(owner: user("alice")).available, 1)
        XCTAssertEqual(try store.deleteExpiredKeyPackages(), 1)
        XCTAssertNil(try store.keyPackage(ref: a2.ref))
        XCTAssertNotNil(try store.keyPackage(ref: a3.ref))
        XCTAssertEqual(try store.deleteExpiredKeyPackages(), 0)
    }

    func test_batchPublish_reportsEachPackage() throws {
        for _ in 0..<4 { _ = try store.publishKeyPackage(keyPackage("alice")) }
        let repeated = keyPackage("alice")
        var foreign = keyPackage("bob")
        _ = try store.publishKeyPackage(foreign)
        foreign.ownerDID = user("alice")
        let results = try store.publishKeyPackages([repeated, repeated, foreign, keyPackage("alice")])
        XCTAssertEqual(try results[0].get().duplicate, false)
        XCTAssertEqual(try results[1].get().duplicate, true)
        XCTAssertEqual(results[2].failure, .duplicateKeyPackage)
        XCTAssertEqual(results[3].failure, .tooManyKeyPackages(limit: 5))
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM key_packages WHERE owner_did = $1", [did("alice")]), 5)
    }

    /// Creates a conversation whose initial commit adds `owner` with `package`.
    private func makeConvoConsuming(_ package: StoredKeyPackage, owner: String) throws -> String {
        let creation = ConvoCreation(groupID: randomGroupID(), cipherSuite: package.cipherSuite, epoch: 1, publicState: [0],
                                     groupInfo: nil, creatorDID: user("zoe"), members: [leaf(0, "zoe"), leaf(1, owner)],
                                     consumedKeyPackages: [KeyPackageUse(ref: package.ref, ownerDID: did(owner))],
                                     initialCommit: [0])
        return try store.createConvo(creation).convo.convoID
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
