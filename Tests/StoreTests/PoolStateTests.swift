import XCTest
@testable import Store

/// The pool's bookkeeping without a database: connections are strings, waiters tiny objects.
final class PoolStateTests: XCTestCase {
    final class Waiter {}
    typealias State = PoolState<String, Waiter>

    func test_opensUpToCapacity_thenQueuesWaiters() {
        var state = State(capacity: 2)
        guard case .open = state.checkout(waiter: Waiter()), case .open = state.checkout(waiter: Waiter()) else {
            return XCTFail("expected two opens")
        }
        let waiter = Waiter()
        guard case .wait = state.checkout(waiter: waiter) else { return XCTFail("expected wait") }
        XCTAssertEqual(state.open, 2)
        XCTAssertEqual(state.inUse, 2)
        XCTAssertEqual(state.waiters.count, 1)

        guard case .handedOff(let served, .connection("c1")) = state.checkin("c1") else {
            return XCTFail("the returned connection goes straight to the waiter")
        }
        XCTAssertTrue(served === waiter)
        XCTAssertEqual(state.inUse, 2)
        guard case .keptIdle = state.checkin("c1"), case .keptIdle = state.checkin("c2") else {
            return XCTFail("expected idle")
        }
        XCTAssertEqual(state.inUse, 0)
        XCTAssertEqual(state.idle, ["c1", "c2"])
        guard case .reuse("c2") = state.checkout(waiter: Waiter()) else { return XCTFail("most recent idle first") }
    }

    func test_discard_handsTheFreedSlotToAWaiter() {
        var state = State(capacity: 1)
        _ = state.checkout(waiter: Waiter())
        let waiter = Waiter()
        _ = state.checkout(waiter: waiter)
        guard let (served, handoff) = state.discard(), case .capacity = handoff else {
            return XCTFail("expected a capacity handoff")
        }
        XCTAssertTrue(served === waiter)
        XCTAssertEqual(state.open, 1)
        XCTAssertEqual(state.inUse, 1)
        XCTAssertNil(state.discard())
        XCTAssertEqual(state.open, 0)
        XCTAssertEqual(state.inUse, 0)
    }

    func test_cancel_onlyRemovesWaitersNotYetServed() {
        var state = State(capacity: 1)
        _ = state.checkout(waiter: Waiter())
        let first = Waiter(), second = Waiter()
        _ = state.checkout(waiter: first)
        _ = state.checkout(waiter: second)
        XCTAssertTrue(state.cancel(first))
        XCTAssertFalse(state.cancel(first))
        guard case .handedOff(let served, _) = state.checkin("c") else { return XCTFail("expected handoff") }
        XCTAssertTrue(served === second)
        XCTAssertFalse(state.cancel(second), "already served: its handoff is on the way")
    }

    func test_close_returnsIdleAndWaiters_andClosesLateCheckins() {
        var state = State(capacity: 2)
        _ = state.checkout(waiter: Waiter())
        _ = state.checkout(waiter: Waiter())
        _ = state.checkin("idle")
        _ = state.checkout(waiter: Waiter())
        let waiter = Waiter()
        _ = state.checkout(waiter: waiter)
        let (idle, waiters) = state.close()
        XCTAssertEqual(idle, [])
        XCTAssertEqual(waiters.count, 1)
        XCTAssertTrue(waiters[0] === waiter)
        guard case .close("late") = state.checkin("late") else { return XCTFail("expected close") }
        guard case .closed = state.checkout(waiter: Waiter()) else { return XCTFail("expected closed") }
        XCTAssertNil(state.discard())
        XCTAssertEqual(state.open, 0)
        XCTAssertEqual(state.inUse, 0)
    }
}

final class RetryBackoffTests: XCTestCase {
    func test_ceilingDoublesThenCaps() {
        let backoff = RetryBackoff(base: 0.005, cap: 0.2)
        XCTAssertEqual(backoff.ceiling(attempt: 1), 0.005)
        XCTAssertEqual(backoff.ceiling(attempt: 2), 0.01)
        XCTAssertEqual(backoff.ceiling(attempt: 4), 0.04)
        XCTAssertEqual(backoff.ceiling(attempt: 7), 0.2)
        XCTAssertEqual(backoff.ceiling(attempt: 1000), 0.2)
    }

    func test_delayIsJitteredWithinTheUpperHalf() {
        let backoff = RetryBackoff()
        var generator = SystemRandomNumberGenerator()
        var seen = Set<Double>()
        for attempt in 1...6 {
            for _ in 0..<50 {
                let delay = backoff.delay(attempt: attempt, using: &generator)
                XCTAssertGreaterThanOrEqual(delay, backoff.ceiling(attempt: attempt) / 2)
                XCTAssertLessThanOrEqual(delay, backoff.ceiling(attempt: attempt))
                seen.insert(delay)
            }
        }
        XCTAssertGreaterThan(seen.count, 100, "delays vary")
    }
}
