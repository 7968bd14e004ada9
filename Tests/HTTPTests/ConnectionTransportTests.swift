import XCTest
@testable import HTTP

/// The protocol-agnostic half of the connection machine, driven by a bare `ProtocolStatus`: what
/// any protocol on the epoll loops (HTTP/1.1 today, MQTT later) gets from the transport.
final class ConnectionTransportTests: XCTestCase {
    static let limits = ConnectionTransport.Limits(readAheadLimit: 100, outputHighWater: 1000, writeTimeout: 40, handshakeTimeout: 5, lingerTime: 2)
    let consuming = ProtocolStatus(acceptsInput: true, awaitsCompletion: false)
    let holding = ProtocolStatus(acceptsInput: false, awaitsCompletion: false)
    let busy = ProtocolStatus(acceptsInput: false, awaitsCompletion: true)

    private func next(_ t: inout ConnectionTransport, _ status: ProtocolStatus, now: UInt64 = 0) -> (ConnectionTransport.Step?, ConnectionTransport.Effects) {
        var effects: ConnectionTransport.Effects = []
        let step = t.nextStep(status, now: now, effects: &effects)
        return (step, effects)
    }

    func testEdgeTriggeredReadiness_IsRememberedUntilEAGAIN() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        XCTAssertNil(next(&t, consuming).0, "nothing reported yet")
        XCTAssertTrue(t.ready(.readable))
        XCTAssertEqual(next(&t, consuming).0, .read)
        XCTAssertEqual(t.readCompleted(.bytes(64 * 1024, short: false)), 64 * 1024)
        XCTAssertEqual(next(&t, consuming).0, .parse)
        t.consumed(64 * 1024, needsMore: true)
        XCTAssertEqual(next(&t, consuming).0, .read, "a full read may have left more")
        _ = t.readCompleted(.bytes(10, short: true))
        t.consumed(10, needsMore: true)
        XCTAssertNil(next(&t, consuming).0, "a short plain read drained the socket")
    }

    func testShortReads_DoNotMeanDrained_UnderTLS_OrAfterTheFIN() {
        var tls = ConnectionTransport(limits: Self.limits, isTLS: true, now: 0)
        XCTAssertTrue(tls.ready(.readable))
        tls.handshakeCompleted()
        _ = tls.readCompleted(.bytes(10, short: true))
        tls.consumed(10, needsMore: true)
        XCTAssertEqual(next(&tls, consuming).0, .read)
        var plain = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        XCTAssertTrue(plain.ready(.hangUp))
        _ = plain.readCompleted(.bytes(10, short: true))
        plain.consumed(10, needsMore: true)
        XCTAssertEqual(next(&plain, consuming).0, .read)
        _ = plain.readCompleted(.endOfStream)
        XCTAssertEqual(next(&plain, consuming).1, .close, "nothing owed, nothing awaited, peer gone")
    }

    func testReading_PausesAtTheReadAheadLimit_OnlyWhileTheProtocolHoldsInputBack() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        _ = t.ready(.readable)
        _ = t.readCompleted(.bytes(64, short: false))
        XCTAssertEqual(next(&t, holding).0, .read)
        _ = t.readCompleted(.bytes(64, short: false))
        XCTAssertTrue(t.isReadingPaused(holding))
        XCTAssertNil(next(&t, holding).0)
        XCTAssertFalse(t.isReadingPaused(consuming))
        XCTAssertEqual(next(&t, consuming).0, .parse, "held input first")
    }

    func testFlush_WaitsForWritability_AndTheWriteDeadlineMeasuresProgress() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        t.queued(unsent: 500, file: false)
        XCTAssertEqual(next(&t, consuming).0, .flush)
        XCTAssertTrue(t.flushed(.blocked(unsent: 300, file: false), progressed: true, now: 10))
        XCTAssertEqual(t.writeDeadline, 50)
        XCTAssertNil(next(&t, consuming).0, "wait for EPOLLOUT")
        XCTAssertTrue(t.outputIsHigh == false)
        _ = t.ready(.writable)
        XCTAssertEqual(next(&t, consuming).0, .flush)
        XCTAssertTrue(t.flushed(.blocked(unsent: 300, file: false), progressed: false, now: 30))
        XCTAssertEqual(t.writeDeadline, 50, "no progress, no extension")
        XCTAssertTrue(t.hasExpired(at: 50))
        XCTAssertFalse(t.flushed(.failed, progressed: false, now: 30))
    }

    func testCloseAfterFlush_DropsInput_ThenLingers_ThenDiscards() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        _ = t.ready(.readable)
        _ = t.readCompleted(.bytes(20, short: true))
        t.queued(unsent: 100, file: false)
        var effects: ConnectionTransport.Effects = []
        t.closeAfterFlushing(into: &effects)
        XCTAssertEqual(effects, .dropHeldInput)
        XCTAssertEqual(t.heldInput, 0)
        XCTAssertEqual(next(&t, consuming).0, .flush, "never parse after the end")
        _ = t.flushed(.drained, progressed: true, now: 10)
        let (step, lingerEffects) = next(&t, busy)
        XCTAssertNil(step)
        XCTAssertEqual(lingerEffects, [], "an answer still being computed keeps the connection")
        XCTAssertEqual(next(&t, consuming, now: 10).1, .shutdownWrite)
        XCTAssertEqual(t.lifecycle, .lingering)
        XCTAssertEqual(t.deadline, 12)
        _ = t.ready(.readable)
        XCTAssertEqual(next(&t, consuming).0, .discardInput)
        var closing: ConnectionTransport.Effects = []
        t.discardCompleted(endOfStream: true, into: &closing)
        XCTAssertEqual(closing, .close)
        XCTAssertTrue(t.isClosed)
    }

    func testPeerHalfClose_KeepsTheConnectionWhileAnAnswerIsOwed() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: false, now: 0)
        _ = t.ready(.hangUp)
        _ = t.readCompleted(.endOfStream)
        XCTAssertEqual(next(&t, busy).1, [], "the worker's answer is still owed")
        t.queued(unsent: 100, file: false)
        XCTAssertEqual(next(&t, consuming).0, .flush)
        _ = t.flushed(.drained, progressed: true, now: 0)
        XCTAssertEqual(next(&t, consuming).1, .close, "no lingering once the peer closed")
    }

    func testHandshake_ReadsAndWrites_ButParsesNothing_UntilComplete() {
        var t = ConnectionTransport(limits: Self.limits, isTLS: true, now: 100)
        XCTAssertEqual(t.deadline, 105)
        _ = t.ready(.readable)
        XCTAssertEqual(next(&t, consuming).0, .read)
        t.ciphertextQueued()
        XCTAssertEqual(next(&t, consuming).0, .flush)
        XCTAssertTrue(t.hasExpired(at: 105))
        t.handshakeCompleted()
        XCTAssertNil(t.deadline)
        XCTAssertEqual(t.lifecycle, .open)
    }
}
