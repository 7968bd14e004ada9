import Basics
import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

/// MAX_CONVOS_PER_USER and the KeyPackage use limits in the store, where they are exact: each is
/// checked in the transaction that would pass it, under a lock per creator or per owner.
final class QuotaLimitTests: StoreTestCase {
    override var configuration: DeliveryStore.Configuration {
        .init(maxConvosPerUser: 2, keyPackageUses: KeyPackageUseLimits(perRequester: 3, perTarget: 5, window: 3600))
    }

    func use(_ package: NewKeyPackage) -> KeyPackageUse { KeyPackageUse(ref: package.ref, ownerDID: package.ownerDID.rawValue) }

    // MARK: Conversations per creator

    func test_convoCap_countsCreatedConvosStillJoined() throws {
        let first = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try makeConvo([leaf(0, "alice")])
        XCTAssertEqual(deliveryError { try makeConvo([leaf(0, "alice")]) }, .tooManyConvos(limit: 2))
        // Conversations others created with alice in them are not hers.
        try makeConvo([leaf(0, "bob"), leaf(1, "alice")], creator: "bob")
        XCTAssertEqual(try store.ownedConvoCount(user("alice")), 2)
        XCTAssertEqual(try store.ownedConvoCount(user("bob")), 1)
        // Once bob removes her from one of hers, she may create another.
        _ = try store.applyCommit(commit(first, from: 0, sender: "bob", members: [leaf(1, "bob")], departures: [0: .removed]))
        XCTAssertEqual(try store.ownedConvoCount(user("alice")), 1)
        try makeConvo([leaf(0, "alice")])
    }

    func test_convoCap_holdsUnderConcurrentCreates() throws {
        let created = Locked(0), refused = Locked(0)
        let store = self.store
        let creator = user("carol"), member = leaf(0, "carol")
        runOnThreads(8) { _ in
            let creation = ConvoCreation(groupID: (0..<16).map { _ in UInt8.random(in: 0...255) }, cipherSuite: 1, epoch: 0,
                                         publicState: [1], groupInfo: [2], creatorDID: creator, members: [member])
            switch Result(catching: { () throws(DeliveryStoreError) in try store.createConvo(creation) }) {
            case .success: created.withLock { $0 += 1 }
            case .failure(.tooManyConvos): refused.withLock { $0 += 1 }
            case .failure(let error): XCTFail("\(error)")
            }
        }
        XCTAssertEqual([created.value, refused.value], [2, 6])
    }

    // MARK: KeyPackage uses

    /// One requester may add at most `perRequester` of one owner's packages per window, however it
    /// spreads them over conversations and commits; another requester has its own allowance.
    func test_perRequesterLimit_stopsOneRequesterDrainingAnOwner() throws {
        let packages = (0..<6).map { _ in keyPackage("bob") }
        for package in packages { _ = try store.publishKeyPackage(package) }
        let convos = try (0..<2).map { _ in try makeConvo([leaf(0, "mallory")], creator: "mallory") }
        _ = try store.applyCommit(commit(convos[0], from: 0, sender: "mallory", members: [leaf(0, "mallory"), leaf(1, "bob"), leaf(2, "bob", device: "b")],
                                         keyPackages: [use(packages[0]), use(packages[1])]))
        // The third would be fine, a fourth in the same commit is not: the commit writes nothing.
        let refusal = deliveryError {
            try store.applyCommit(commit(convos[1], from: 0, sender: "mallory",
                                         members: [leaf(0, "mallory"), leaf(1, "bob"), leaf(2, "bob", device: "b")],
                                         keyPackages: [use(packages[2]), use(packages[3])]))
        }
        guard case .tooManyKeyPackageUses(let owner, let retryAfter) = refusal else { return XCTFail("\(String(describing: refusal))") }
        XCTAssertEqual(owner, did("bob"))
        XCTAssertTrue((3500...3600).contains(retryAfter), "\(retryAfter)")
        XCTAssertNil(try store.keyPackage(ref: packages[2].ref)?.consumedAt)
        _ = try store.applyCommit(commit(convos[1], from: 0, sender: "mallory", members: [leaf(0, "mallory"), leaf(1, "bob")],
                                         keyPackages: [use(packages[2])]))
        // Alice is another requester.
        let mine = try makeConvo([leaf(0, "alice")])
        _ = try store.applyCommit(commit(mine, from: 0, sender: "alice", members: [leaf(0, "alice"), leaf(1, "bob")],
                                         keyPackages: [use(packages[3])]))
        // Uses older than the window no longer count.
        try fixture.database.execute("UPDATE key_package_uses SET used_at = used_at - interval '2 hours' WHERE consumer_did = $1",
                                     [did("mallory")])
        _ = try store.applyCommit(commit(convos[1], from: 1, sender: "mallory",
                                         members: [leaf(0, "mallory"), leaf(1, "bob"), leaf(2, "bob", device: "b")],
                                         keyPackages: [use(packages[4])]))
        XCTAssertEqual(try store.deleteExpiredKeyPackages(), 3, "the three old use records")
    }

    /// Past `perTarget` one-time uses by everyone in the window, the owner's one-time packages stay
    /// and getKeyPackages hands out its last-resort package, which is never consumed.
    func test_perTargetLimit_fallsBackToTheLastResortPackage() throws {
        let oneTime = (0..<8).map { _ in keyPackage("bob") }
        for package in oneTime { _ = try store.publishKeyPackage(package) }
        var lastResort = keyPackage("bob")
        lastResort.lastResort = true
        _ = try store.publishKeyPackage(lastResort)
        XCTAssertEqual(try store.keyPackageStats(owner: user("bob")).available, 8, "the last-resort package is not counted")
        XCTAssertEqual(try store.keyPackageStats(owner: user("bob")).lastResortSuites, [1])

        // Five requesters take one each: the target's allowance for the window.
        for (index, name) in ["alice", "carol", "dave", "erin", "frank"].enumerated() {
            let served = try XCTUnwrap(try store.keyPackages(for: [user("bob")]).packages.first)
            XCTAssertFalse(served.lastResort)
            let convo = try makeConvo([leaf(0, name)], creator: name)
            _ = try store.applyCommit(commit(convo, from: 0, sender: name, members: [leaf(0, name), leaf(1, "bob")],
                                             keyPackages: [KeyPackageUse(ref: served.ref, ownerDID: did("bob"))]))
            XCTAssertEqual(try store.keyPackageStats(owner: user("bob")).available, 7 - index)
        }
        // Now the last-resort package is served, though one-time ones are left, and using it
        // consumes nothing; a one-time package is refused.
        let served = try XCTUnwrap(try store.keyPackages(for: [user("bob")]).packages.first)
        XCTAssertEqual(served.ref, lastResort.ref)
        XCTAssertTrue(served.lastResort)
        let convo = try makeConvo([leaf(0, "gina")], creator: "gina")
        let refusal = deliveryError {
            try store.applyCommit(commit(convo, from: 0, sender: "gina", members: [leaf(0, "gina"), leaf(1, "bob")],
                                         keyPackages: [use(oneTime[7])]))
        }
        guard case .tooManyKeyPackageUses = refusal else { return XCTFail("\(String(describing: refusal))") }
        for name in ["gina", "hank"] {
            let mine = name == "gina" ? convo : try makeConvo([leaf(0, name)], creator: name)
            _ = try store.applyCommit(commit(mine, from: 0, sender: name, members: [leaf(0, name), leaf(1, "bob")],
                                             keyPackages: [use(lastResort)]))
        }
        let kept = try XCTUnwrap(try store.keyPackage(ref: lastResort.ref))
        XCTAssertNil(kept.consumedAt)
        XCTAssertEqual(try store.keyPackages(for: [user("bob")]).packages.map(\.ref), [lastResort.ref])
        XCTAssertEqual(try store.keyPackageStats(owner: user("bob")).available, 3)

        // A new last-resort package replaces the old one; the per-user cap ignores them.
        var next = keyPackage("bob")
        next.lastResort = true
        _ = try store.publishKeyPackage(next)
        XCTAssertNil(try store.keyPackage(ref: lastResort.ref))
        XCTAssertEqual(try store.keyPackages(for: [user("bob")]).packages.map(\.ref), [next.ref])
    }

    /// Without a last-resort package and with nothing else left, the owner is missing.
    func test_lastResortPackage_isServedOnlyWhenNothingElseIsLeft() throws {
        let only = keyPackage("bob")
        var lastResort = keyPackage("bob")
        lastResort.lastResort = true
        _ = try store.publishKeyPackage(lastResort)
        _ = try store.publishKeyPackage(only)
        XCTAssertEqual(try store.keyPackages(for: [user("bob")]).packages.map(\.ref), [only.ref], "one-time first, though newer")
        let convo = try makeConvo([leaf(0, "alice")])
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob")], keyPackages: [use(only)]))
        XCTAssertEqual(try store.keyPackages(for: [user("bob")]).packages.map(\.ref), [lastResort.ref])
        try fixture.database.execute("DELETE FROM key_packages WHERE last_resort")
        XCTAssertEqual(try store.keyPackages(for: [user("bob")]).missing, [did("bob")])
    }

    /// An owner without a last-resort package whose allowance is spent is still served a one-time
    /// package: the commit that adds it is refused, with the time until the window moves on.
    func test_perTargetLimit_withoutALastResortPackage_servesOneTimeOnes() throws {
        let packages = (0..<7).map { _ in keyPackage("bob") }
        for package in packages { _ = try store.publishKeyPackage(package) }
        for (index, name) in ["alice", "carol", "dave", "erin", "frank"].enumerated() {
            let convo = try makeConvo([leaf(0, name)], creator: name)
            _ = try store.applyCommit(commit(convo, from: 0, sender: name, members: [leaf(0, name), leaf(1, "bob")],
                                             keyPackages: [use(packages[index])]))
        }
        let served = try XCTUnwrap(try store.keyPackages(for: [user("bob")]).packages.first)
        XCTAssertEqual(served.ref, packages[5].ref)
        let convo = try makeConvo([leaf(0, "gina")], creator: "gina")
        guard case .tooManyKeyPackageUses(_, let retryAfter) = deliveryError({
            try store.applyCommit(commit(convo, from: 0, sender: "gina", members: [leaf(0, "gina"), leaf(1, "bob")],
                                         keyPackages: [use(packages[5])]))
        }) else { return XCTFail("not limited") }
        XCTAssertTrue((3500...3600).contains(retryAfter), "\(retryAfter)")
    }

    /// Concurrent commits by one requester in different conversations never pass its limit.
    func test_perRequesterLimit_holdsUnderConcurrentCommits() throws {
        let packages = (0..<8).map { _ in keyPackage("bob") }
        for package in packages { _ = try store.publishKeyPackage(package) }
        // Eight conversations (of eight creators: the conversation cap is not what this tests), in each
        // of which mallory commits an Add of one of bob's packages.
        let creators = ["pa", "pb", "pc", "pd", "pe", "pf", "pg", "ph"]
        let convos = try creators.map { name in try makeConvo([leaf(0, name)], creator: name) }
        let applications = zip(zip(convos, creators), packages).map { pair, package in
            commit(pair.0, from: 0, sender: "mallory", members: [leaf(0, pair.1), leaf(1, "bob")], keyPackages: [use(package)])
        }
        let accepted = Locked(0), limited = Locked(0)
        let store = self.store
        runOnThreads(8) { index in
            switch Result(catching: { () throws(DeliveryStoreError) in try store.applyCommit(applications[index]) }) {
            case .success: accepted.withLock { $0 += 1 }
            case .failure(.tooManyKeyPackageUses): limited.withLock { $0 += 1 }
            case .failure(let error): XCTFail("\(error)")
            }
        }
        XCTAssertEqual([accepted.value, limited.value], [3, 5])
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM key_package_uses"), 3)
    }
}
