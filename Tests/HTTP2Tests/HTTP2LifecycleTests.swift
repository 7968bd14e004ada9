@testable import HTTP2
import XCTest

/// The connection's life without sockets or a clock: when to connect, back off, ping, give up and drain.
final class HTTP2LifecycleTests: XCTestCase {
    var lifecycle = HTTP2Lifecycle(pingInterval: 60, pingTimeout: 10)

    func testNothingWaits_NothingIsDone() {
        XCTAssertEqual(lifecycle.tick(now: 0, waiting: false, streams: 0), [])
        XCTAssertEqual(lifecycle.phase, .idle)
        XCTAssertNil(lifecycle.nextDeadline(waiting: true))
    }

    func testARequest_Connects_Once() {
        XCTAssertEqual(lifecycle.tick(now: 0, waiting: true, streams: 0), [.connect])
        XCTAssertEqual(lifecycle.tick(now: 1, waiting: true, streams: 0), [], "one connect at a time")
        lifecycle.connected(now: 2)
        XCTAssertEqual(lifecycle.phase, .open)
        XCTAssertEqual(lifecycle.tick(now: 3, waiting: true, streams: 1), [])
    }

    func testFailedConnects_BackOff_Doubling_ToThirtySeconds() {
        var now = 0.0
        var delays: [Double] = []
        for _ in 0..<9 {
            XCTAssertEqual(lifecycle.tick(now: now, waiting: true, streams: 0), [.connect])
            lifecycle.connectFailed(now: now)
            guard case .waiting(let until) = lifecycle.phase else { return XCTFail("\(lifecycle.phase)") }
            delays.append(until - now)
            XCTAssertEqual(lifecycle.tick(now: until - 0.01, waiting: true, streams: 0), [], "not before its time")
            XCTAssertEqual(lifecycle.nextDeadline(waiting: true), until)
            now = until
        }
        XCTAssertEqual(delays, [0.5, 1, 2, 4, 8, 16, 30, 30, 30])
        // Nothing waiting: no reconnect even when the time comes, and nothing to wake up for.
        XCTAssertNil(lifecycle.nextDeadline(waiting: false))
        XCTAssertEqual(lifecycle.tick(now: now + 100, waiting: false, streams: 0), [])
    }

    func testAResponse_ResetsTheBackoff() {
        _ = lifecycle.tick(now: 0, waiting: true, streams: 0)
        lifecycle.connectFailed(now: 0)
        _ = lifecycle.tick(now: 1, waiting: true, streams: 0)
        lifecycle.connected(now: 1)
        lifecycle.responded(now: 2)
        XCTAssertEqual(lifecycle.failures, 0)
        // A connection that worked and then broke is replaced at once.
        XCTAssertEqual(lifecycle.lost(now: 3), [.close])
        XCTAssertEqual(lifecycle.phase, .idle)
        XCTAssertEqual(lifecycle.tick(now: 3, waiting: true, streams: 0), [.connect])
        // One lost again before any response waits before the next try.
        lifecycle.connected(now: 3)
        _ = lifecycle.lost(now: 4)
        XCTAssertEqual(lifecycle.phase, .waiting(until: 5))
    }

    func testAnIdleConnection_IsPinged_AndGivenUpWhenThePingGoesUnanswered() {
        _ = lifecycle.tick(now: 0, waiting: true, streams: 0)
        lifecycle.connected(now: 0)
        XCTAssertEqual(lifecycle.nextDeadline(waiting: true), 60)
        XCTAssertEqual(lifecycle.tick(now: 59, waiting: false, streams: 0), [])
        lifecycle.heard(now: 30)
        XCTAssertEqual(lifecycle.tick(now: 60, waiting: false, streams: 0), [], "heard from 30 s ago")
        XCTAssertEqual(lifecycle.tick(now: 90, waiting: false, streams: 0), [.ping])
        XCTAssertEqual(lifecycle.tick(now: 95, waiting: false, streams: 0), [], "one ping at a time")
        XCTAssertEqual(lifecycle.nextDeadline(waiting: true), 100)
        lifecycle.pingAcknowledged(now: 91)
        XCTAssertEqual(lifecycle.tick(now: 100, waiting: false, streams: 0), [])
        XCTAssertEqual(lifecycle.tick(now: 151, waiting: false, streams: 0), [.ping])
        XCTAssertEqual(lifecycle.tick(now: 161, waiting: true, streams: 2), [.close], "no answer within 10 s")
        XCTAssertNotEqual(lifecycle.phase, .open)
    }

    func testGoAway_Drains_ThenClosesAndReconnectsForWhatWaits() {
        _ = lifecycle.tick(now: 0, waiting: true, streams: 0)
        lifecycle.connected(now: 0)
        lifecycle.goAway()
        XCTAssertEqual(lifecycle.phase, .draining)
        XCTAssertEqual(lifecycle.tick(now: 1, waiting: true, streams: 3), [], "its streams finish first")
        XCTAssertEqual(lifecycle.tick(now: 2, waiting: true, streams: 0), [.close, .connect])
        XCTAssertEqual(lifecycle.phase, .connecting)
    }
}
