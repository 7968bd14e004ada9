import Basics
import Foundation
import Primitives
import XCTest
@testable import ATProto

/// The resolver's fetch queue and key cache as values, on a hand-set clock: single flight, the
/// caps, the bounded queue and its time limit; transient and definitive failures.
final class DIDFetchQueueTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    private let a = Fixtures.randomPLC()
    private let b = Fixtures.randomPLC()
    private let c = Fixtures.randomPLC()

    func testSingleFlight_LaterRequestsJoin_AndAllWaitersAreHandedBack() {
        var queue = DIDFetchQueue<Int>(maxQueued: 8, maxRunning: 4, maxPerHost: 4)
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 1), .started)
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 2), .joined)
        XCTAssertEqual(queue.next()?.did, a)
        XCTAssertNil(queue.next(), "one job per DID")
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 3), .joined, "joins the running fetch too")
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: nil), .joined)
        XCTAssertEqual(queue.finish(a), [1, 2, 3])
        XCTAssertFalse(queue.isPending(a))
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 4), .started, "a new fetch once the last ended")
    }

    func testPerHostAndOverallCaps() {
        var queue = DIDFetchQueue<Int>(maxQueued: 8, maxRunning: 3, maxPerHost: 2)
        for (did, host) in [(a, "plc"), (b, "plc"), (c, "plc")] { _ = queue.request(did, host: host, now: t0, waiter: nil) }
        let web1 = try! DID("did:web:one.example"), web2 = try! DID("did:web:two.example")
        _ = queue.request(web1, host: "one.example", now: t0, waiter: nil)
        _ = queue.request(web2, host: "two.example", now: t0, waiter: nil)
        XCTAssertEqual(queue.next()?.did, a)
        XCTAssertEqual(queue.next()?.did, b)
        XCTAssertEqual(queue.next()?.did, web1, "the third PLC job waits for a host slot; another host goes first")
        XCTAssertNil(queue.next(), "three running: the overall cap")
        XCTAssertEqual(queue.runningCount, 3)
        _ = queue.finish(a)
        XCTAssertEqual(queue.next()?.did, c, "the oldest job the caps allow")
        _ = queue.finish(web1)
        XCTAssertEqual(queue.next()?.did, web2)
    }

    func testFullQueue_Refuses_WithoutKeepingTheWaiter() {
        var queue = DIDFetchQueue<Int>(maxQueued: 2, maxRunning: 1, maxPerHost: 1)
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 1), .started)
        XCTAssertEqual(queue.request(b, host: "plc", now: t0, waiter: 2), .started)
        XCTAssertEqual(queue.request(c, host: "plc", now: t0, waiter: 3), .refused)
        XCTAssertEqual(queue.request(a, host: "plc", now: t0, waiter: 4), .joined, "joining costs no queue slot")
        XCTAssertEqual(queue.finish(c), [])
        XCTAssertEqual(queue.next()?.did, a)
        XCTAssertEqual(queue.request(c, host: "plc", now: t0, waiter: 5), .started, "the running job left the queue")
    }

    func testQueuedJobsExpire_AndTheirWaitersAreToldNothingWasFetched() {
        var queue = DIDFetchQueue<Int>(maxQueued: 8, maxRunning: 1, maxPerHost: 1)
        _ = queue.request(a, host: "plc", now: t0, waiter: 1)
        _ = queue.request(b, host: "plc", now: t0, waiter: 2)
        _ = queue.request(c, host: "plc", now: t0.addingTimeInterval(2), waiter: 3)
        XCTAssertEqual(queue.next()?.did, a)
        XCTAssertEqual(queue.expire(olderThan: 3, now: t0.addingTimeInterval(2.9)), [])
        XCTAssertEqual(queue.expire(olderThan: 3, now: t0.addingTimeInterval(3)), [2], "b waited 3 s; a runs, c is younger")
        XCTAssertEqual(queue.queuedCount, 1)
        XCTAssertEqual(queue.finish(a), [1])
        XCTAssertEqual(queue.next()?.did, c)
    }

    // MARK: The cache

    private func cache(capacity: Int = 100) -> DIDKeyCache {
        DIDKeyCache(freshFor: 3600, hardExpiry: 86_400, negativeFor: 120, transientFor: 10, forcedRefreshInterval: 60, capacity: capacity)
    }

    private let key = AtprotoSigningKey(publicKey: try! ECDSAPrivateKey.generate(curve: .secp256k1).publicKey)!
    private let failure = AuthError(name: AuthError.badJwtSignature, message: "x")

    func testTransientFailure_IsRememberedBriefly_DefinitiveLonger() {
        var cache = cache()
        cache.storeFailure(failure, transient: true, for: a, now: t0)
        cache.storeFailure(failure, transient: false, for: b, now: t0)
        XCTAssertEqual(cache.lookup(a, now: t0.addingTimeInterval(9.9)), .negative(failure))
        XCTAssertEqual(cache.lookup(a, now: t0.addingTimeInterval(10)), .miss)
        XCTAssertEqual(cache.lookup(b, now: t0.addingTimeInterval(119)), .negative(failure))
        XCTAssertEqual(cache.lookup(b, now: t0.addingTimeInterval(120)), .miss)
    }

    func testTransientFailure_KeepsAStaleKey_AndDelaysItsNextRefresh() {
        var cache = cache()
        cache.store(key, for: a, now: t0)
        let later = t0.addingTimeInterval(4000)
        XCTAssertEqual(cache.lookup(a, now: later), .stale(key, refreshDue: true))
        cache.storeFailure(failure, transient: true, for: a, now: later)
        XCTAssertEqual(cache.lookup(a, now: later.addingTimeInterval(5)), .stale(key, refreshDue: false))
        XCTAssertEqual(cache.lookup(a, now: later.addingTimeInterval(10)), .stale(key, refreshDue: true))
        cache.storeFailure(failure, transient: false, for: a, now: later)
        XCTAssertEqual(cache.lookup(a, now: later), .negative(failure), "a definitive answer replaces the key")
    }

    func testAFloodOfFailures_NeverPushesOutKeys() {
        var cache = cache(capacity: 10)
        for _ in 0..<4 { cache.store(key, for: Fixtures.randomPLC(), now: t0) }
        cache.store(key, for: a, now: t0)
        for index in 0..<100 { cache.storeFailure(failure, transient: false, for: Fixtures.randomPLC(), now: t0.addingTimeInterval(Double(index))) }
        XCTAssertEqual(cache.lookup(a, now: t0.addingTimeInterval(100)), .fresh(key))
        XCTAssertLessThanOrEqual(cache.count, 10)
    }
}
