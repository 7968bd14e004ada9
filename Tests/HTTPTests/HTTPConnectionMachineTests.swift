import XCTest
@testable import HTTP

/// Scenarios of the connection machine with a fake clock: what a connection does, step by step.
final class HTTPConnectionMachineTests: XCTestCase {
    typealias Event = HTTPConnectionMachine.Event
    let request = RestingState.request

    private func assertActions(_ h: inout MachineHarness, _ event: Event, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let wasClosed = h.machine.isClosed
        let actions = h.send(event)
        XCTAssertEqual(h.describe(actions), expected, "after \(event)", file: file, line: line)
        for violation in h.invariantViolations(after: actions, wasClosed: wasClosed) { XCTFail(violation, file: file, line: line) }
    }

    // MARK: The slow-reader stall

    /// The stall of `testLargeResponses_SurviveASlowReader`: the pipeline stops at the high-water
    /// mark, and the flush right after sends everything. The held request must be parsed next.
    func testHeldRequest_IsParsed_WhenTheFlushAfterAHighWaterStopSendsEverything() {
        var h = MachineHarness()
        h.send([.ready(.readable), .read(.bytes(2 * request, short: true)), .parsed(consumed: request, .head(.init(hasBody: false)))])
        assertActions(&h, .parsed(consumed: 0, .requestEnd(.inline)), "timer off, respond(keep)")
        // At the mark: no parsing; write first.
        assertActions(&h, .responseQueued(unsent: 1000, file: false, persist: true), "flush")
        XCTAssertEqual(h.transport.heldInput, request)
        // The held request's head clock starts now that it is no longer held back by us.
        assertActions(&h, .flushed(.drained, progressed: true), "timer+10, parse")
    }

    func testHeldRequest_IsParsed_WhenAFileBodyWentOutInOneFlush() {
        var h = MachineHarness()
        h.send([.ready(.readable), .read(.bytes(2 * request, short: true)), .parsed(consumed: request, .head(.init(hasBody: false))),
                .parsed(consumed: 0, .requestEnd(.inline))])
        assertActions(&h, .responseQueued(unsent: 80, file: true, persist: true), "flush")
        assertActions(&h, .flushed(.drained, progressed: true), "timer+10, parse")
    }

    func testPipeline_ResumesOnceOutputFallsBelowTheMark_EvenIfStillBlocked() {
        var h = RestingState.pipelineHeld.harness
        assertActions(&h, .ready(.writable), "flush")
        assertActions(&h, .flushed(.blocked(unsent: 999, file: false), progressed: true), "timer+10, parse")
    }

    func testPipelinedInlineRequests_AreAnsweredBeforeOneFlush() {
        var h = MachineHarness()
        h.send([.ready(.readable), .read(.bytes(2 * request, short: true)), .parsed(consumed: request, .head(.init(hasBody: false))),
                .parsed(consumed: 0, .requestEnd(.inline))])
        assertActions(&h, .responseQueued(unsent: 100, file: false, persist: true), "timer+10, parse")
        assertActions(&h, .parsed(consumed: request, .head(.init(hasBody: false))), "parse")
        assertActions(&h, .parsed(consumed: 0, .requestEnd(.inline)), "timer off, respond(keep)")
        // Nothing held: no parser round, straight to one flush for both answers.
        assertActions(&h, .responseQueued(unsent: 200, file: false, persist: true), "flush")
        assertActions(&h, .flushed(.drained, progressed: true), "timer+30")
        XCTAssertEqual(h.http.phase, .idle)
    }

    func testRequestHeldBehindOurOwnOutput_GetsNo408() {
        var h = RestingState.pipelineHeld.harness
        XCTAssertEqual(h.http.phase, .readingHead)
        XCTAssertNil(h.http.deadline, "the client is not the one keeping us waiting")
        h.advance(39)
        assertActions(&h, .tick, "")
        // Below the mark the header clock starts.
        h.send([.ready(.writable), .flushed(.blocked(unsent: 500, file: false), progressed: true), .parsed(consumed: 0, .needsMore)])
        XCTAssertEqual(h.http.deadline, h.now + 10)
    }

    // MARK: Timeouts on the fake clock

    func testSilentConnection_IsClosedAtTheHeaderDeadline() {
        var h = MachineHarness()
        h.advance(9)
        assertActions(&h, .tick, "")
        h.advance(1)
        assertActions(&h, .tick, "close")
    }

    func testDribbledHead_Gets408_FromAcceptTime() {
        var h = RestingState.readingHead.harness
        h.advance(5)
        h.send([.ready(.readable), .read(.bytes(5, short: true)), .parsed(consumed: 0, .needsMore)])
        XCTAssertEqual(h.machine.timer, MachineHarness.start + 10, "more bytes do not extend the head's time")
        h.advance(5)
        assertActions(&h, .tick, "timer off, write timeout(close)")
        // What was held of the head is never parsed.
        assertActions(&h, .responseQueued(unsent: 90, file: false, persist: false), "drop, flush")
        assertActions(&h, .flushed(.drained, progressed: true), "shutdown, timer+2")
        XCTAssertEqual(h.transport.lifecycle, .lingering)
        h.advance(2)
        assertActions(&h, .tick, "close")
    }

    func testNextRequest_HeaderClockStartsAtItsFirstByte() {
        var h = RestingState.idle.harness
        h.advance(25)
        assertActions(&h, .ready(.readable), "read")
        assertActions(&h, .read(.bytes(5, short: true)), "timer+10, parse")
        assertActions(&h, .parsed(consumed: 0, .needsMore), "")
        XCTAssertEqual(h.http.phase, .readingHead)
    }

    func testIdleClock_StartsWhenTheLastResponseHasGoneOut() {
        var h = RestingState.respondingBlocked.harness
        XCTAssertEqual(h.http.phase, .idle)
        XCTAssertNil(h.http.deadline)
        h.advance(35)
        h.send(.ready(.writable))
        assertActions(&h, .flushed(.drained, progressed: true), "timer+30")
        h.advance(29)
        assertActions(&h, .tick, "")
        h.advance(1)
        assertActions(&h, .tick, "close")
    }

    func testBufferedBody_HasItsWholeTimeFromTheHead() {
        var h = RestingState.readingBody.harness
        h.advance(15)
        h.send([.ready(.readable), .read(.bytes(10, short: true)), .parsed(consumed: 10, .needsMore)])
        XCTAssertEqual(h.machine.timer, MachineHarness.start + 20)
    }

    func testStreamedBody_TimeoutMeasuresSilence_AndStopsWhileTheConsumerIsBehind() {
        var h = RestingState.streamingBody.harness
        h.advance(15)
        assertActions(&h, .ready(.readable), "read")
        assertActions(&h, .read(.bytes(10, short: true)), "timer+20, parse")
        assertActions(&h, .parsed(consumed: 10, .bodyPart(accepted: false)), "timer off")
        h.advance(100)
        assertActions(&h, .tick, "")
        assertActions(&h, .bodyConsumerCaughtUp, "timer+20, parse")
    }

    // MARK: A streamed body's pace (issue 14)

    /// One byte per fake nanosecond after a grace of 20 (the body timeout), 60 in all.
    private static let paced: HTTPConnectionMachine.Limits = {
        var limits = MachineHarness.limits
        limits.http.streamMinimumRate = 1_000_000_000
        limits.http.streamMaximum = 60
        return limits
    }()

    /// `count` body bytes read and taken by the stream's consumer.
    private static func bodyBytes(_ count: Int) -> [Event] {
        [.ready(.readable), .read(.bytes(count, short: true)), .parsed(consumed: count, .bodyPart(accepted: true)), .parsed(consumed: 0, .needsMore)]
    }

    /// A stream begun at `start` with no body byte yet.
    private func pacedStream() -> MachineHarness {
        var h = MachineHarness(limits: Self.paced)
        h.send([.ready(.readable), .read(.bytes(40, short: true)), .parsed(consumed: 40, .head(.init(hasBody: true, streamed: true))),
                .parsed(consumed: 0, .needsMore)])
        XCTAssertEqual(h.machine.timer, MachineHarness.start + 20, "grace: the body timeout")
        return h
    }

    /// A client dripping a byte every few nanoseconds resets the silence timeout each time, but
    /// falls behind the rate: cut with 408 when the bytes it sent no longer pay for the time it took.
    func testStreamedBody_ADripIsCut_WhenItFallsBehindTheMinimumRate() {
        var h = pacedStream()
        var cut: String?
        for _ in 0..<20 {
            h.advance(5)
            if let timer = h.machine.timer, h.now >= timer { cut = h.describe(h.send(.tick)); break }
            h.send(Self.bodyBytes(1))
            XCTAssertLessThanOrEqual(h.machine.timer ?? .max, h.now + 20, "never later than the silence timeout")
        }
        // 20 ns of grace plus one per byte, one byte per 5 ns: due at 25.
        XCTAssertEqual(h.now, MachineHarness.start + 25)
        XCTAssertEqual(cut, "fail stream(timedOut), timer off, write timeout(close)")
    }

    /// A fast client earns time, but never past the overall limit.
    func testStreamedBody_EndsAtItsOverallLimit_HoweverFastItWasSentBefore() {
        var h = pacedStream()
        h.advance(5)
        h.send(Self.bodyBytes(1000))
        XCTAssertEqual(h.machine.timer, h.now + 20, "the silence timeout is the nearer")
        for _ in 0..<5 {
            h.advance(10)
            h.send(Self.bodyBytes(1))
        }
        XCTAssertEqual(h.machine.timer, MachineHarness.start + 60, "the limit, not the credit of 1000 bytes")
        h.advance(5)
        assertActions(&h, .tick, "fail stream(timedOut), timer off, write timeout(close)")
    }

    /// While the server holds the body back, neither clock runs against the client.
    func testStreamedBody_PaceStopsWhileTheConsumerIsBehind() {
        var h = pacedStream()
        h.advance(10)
        h.send([.ready(.readable), .read(.bytes(5, short: true))])
        XCTAssertEqual(h.machine.timer, MachineHarness.start + 25, "grace 20 + 5 bytes")
        assertActions(&h, .parsed(consumed: 5, .bodyPart(accepted: false)), "timer off")
        h.advance(500)
        assertActions(&h, .bodyConsumerCaughtUp, "timer+15, parse")
        // 15 left on the pace and 50 on the limit, counted from now.
        h.advance(15)
        assertActions(&h, .tick, "fail stream(timedOut), timer off, write timeout(close)")
    }

    func testStreamedBody_WithoutPace_OnlySilenceCounts() {
        var h = RestingState.streamingBody.harness
        for _ in 0..<50 {
            h.advance(15)
            h.send(Self.bodyBytes(1))
        }
        XCTAssertEqual(h.machine.timer, h.now + 20)
    }

    func testWriteDeadline_MeasuresTimeWithoutProgress() {
        var h = RestingState.respondingBlocked.harness
        XCTAssertEqual(h.machine.timer, h.now + 40)
        h.advance(30)
        h.send(.ready(.writable))
        assertActions(&h, .flushed(.blocked(unsent: 300, file: false), progressed: false), "")
        h.send(.ready(.writable))
        assertActions(&h, .flushed(.blocked(unsent: 200, file: false), progressed: true), "timer+40")
    }

    func testTLSHandshake_HasItsOwnDeadline_ThenTheHeadClockStarts() {
        var h = MachineHarness(tls: true)
        XCTAssertEqual(h.machine.timer, h.now + 5)
        h.advance(3)
        h.send(.ready(.readable))
        assertActions(&h, .read(.wouldBlock, handshakeCompleted: true, ciphertextQueued: true), "timer+10, flush")
        XCTAssertEqual(h.transport.lifecycle, .open)
        var late = MachineHarness(tls: true)
        late.advance(5)
        assertActions(&late, .tick, "close")
    }

    // MARK: Back-pressure

    func testReading_PausesWhenHeldInputCannotBeConsumed_AndResumesAfterTheAnswer() {
        var h = RestingState.awaitingWorker.harness
        h.send(.ready(.readable))
        assertActions(&h, .read(.bytes(64, short: false)), "read")
        assertActions(&h, .read(.bytes(64, short: false)), "")
        XCTAssertTrue(h.transport.isReadingPaused(h.machine.protocolStatus))
        assertActions(&h, .ready(.readable), "")
        assertActions(&h, .workerResponded, "write worker(keep)")
        assertActions(&h, .responseQueued(unsent: 100, file: false, persist: true), "timer+10, parse")
        assertActions(&h, .parsed(consumed: 128, .needsMore), "timer off, flush")
        assertActions(&h, .flushed(.drained, progressed: true), "timer+30, read")
    }

    /// A file response in flight holds pipelined input back too (it used to grow without bound).
    func testFileResponseInFlight_BoundsHeldInput() {
        var h = MachineHarness()
        h.send(RestingState.requestTo(.inline) + [.responseQueued(unsent: 0, file: true, persist: true),
                                                  .flushed(.blocked(unsent: 0, file: true), progressed: true)])
        h.send(.ready(.readable))
        h.send([.read(.bytes(64, short: false)), .read(.bytes(64, short: false))])
        XCTAssertEqual(h.transport.heldInput, 128)
        XCTAssertTrue(h.transport.isReadingPaused(h.machine.protocolStatus))
    }

    func testHangUp_ReadsOnToTheEndOfInput_PastShortReads() {
        var h = RestingState.awaitingWorker.harness
        assertActions(&h, .ready([.readable, .hangUp]), "read")
        assertActions(&h, .read(.bytes(10, short: true)), "read")
        assertActions(&h, .read(.endOfStream), "")
        assertActions(&h, .workerResponded, "write worker(keep)")
        assertActions(&h, .responseQueued(unsent: 100, file: false, persist: true), "timer+10, parse")
        assertActions(&h, .parsed(consumed: 0, .needsMore), "flush")
        // Everything owed went out and the peer is gone: close without lingering.
        assertActions(&h, .flushed(.drained, progressed: true), "close")
    }

    // MARK: Half-close, refusals, shutdown

    func testCompleteRequestsSentBeforeTheFIN_AreAllAnswered() {
        var h = MachineHarness()
        h.send([.ready([.readable, .hangUp]), .read(.bytes(2 * request, short: true))])
        assertActions(&h, .parsed(consumed: request, .head(.init(hasBody: false))), "parse")
        assertActions(&h, .parsed(consumed: 0, .requestEnd(.worker)), "submit, timer off, read")
        assertActions(&h, .read(.endOfStream), "")
        assertActions(&h, .workerResponded, "write worker(keep)")
        assertActions(&h, .responseQueued(unsent: 100, file: false, persist: true), "timer+10, parse")
        assertActions(&h, .parsed(consumed: request, .head(.init(hasBody: false))), "parse")
        assertActions(&h, .parsed(consumed: 0, .requestEnd(.inline)), "timer off, respond(keep)")
        assertActions(&h, .responseQueued(unsent: 200, file: false, persist: true), "flush")
        assertActions(&h, .flushed(.drained, progressed: true), "close")
    }

    func testPeerGoneMidUpload_FailsTheStream_AndCloses() {
        var h = RestingState.streamingBody.harness
        h.send(.ready(.hangUp))
        assertActions(&h, .read(.endOfStream), "fail stream(clientDisconnected), close")
    }

    func testMalformedInput_IsAnswered400_AndTheRestDropped() {
        var h = MachineHarness()
        h.send([.ready(.readable), .read(.bytes(100, short: true))])
        assertActions(&h, .parsed(consumed: 60, .failed(.invalidRequestLine)), "drop, timer off, write rejection(HTTP.HTTPParserError.invalidRequestLine)(close)")
        assertActions(&h, .responseQueued(unsent: 80, file: false, persist: false), "flush")
        assertActions(&h, .flushed(.blocked(unsent: 40, file: false), progressed: true), "timer+40")
        assertActions(&h, .ready(.readable), "read")
        assertActions(&h, .read(.bytes(10, short: true)), "drop")
    }

    func testExpectContinue_IsQueuedBeforeTheStreamStarts() {
        var h = MachineHarness()
        h.send([.ready(.readable), .read(.bytes(request, short: true))])
        assertActions(&h, .parsed(consumed: request, .head(.init(hasBody: true, streamed: true, sendContinue: true))),
                      "continue, stream(keep), timer+20, parse")
        assertActions(&h, .parsed(consumed: 0, .needsMore), "flush")
    }

    func testLateWorkerAnswer_AfterA408_IsIgnored() {
        var h = RestingState.streamingBody.harness
        h.fireTimer()
        h.send([.responseQueued(unsent: 90, file: false, persist: false), .flushed(.blocked(unsent: 90, file: false), progressed: false)])
        assertActions(&h, .workerResponded, "")
    }

    func testDrain_ClosesIdleConnections_AndEndsBusyOnesAfterTheirResponse() {
        var idle = RestingState.idle.harness
        assertActions(&idle, .drain, "close")
        var busy = RestingState.awaitingWorker.harness
        assertActions(&busy, .drain, "")
        assertActions(&busy, .workerResponded, "write worker(close)")
        var reading = RestingState.readingHead.harness
        reading.send(.drain)
        reading.send([.ready(.readable), .read(.bytes(35, short: true)), .parsed(consumed: 40, .head(.init(hasBody: false)))])
        assertActions(&reading, .parsed(consumed: 0, .requestEnd(.inline)), "timer off, respond(close)")
    }

    func testClosedConnection_IgnoresEverything() {
        var h = RestingState.closed.harness
        for event: Event in [.ready(.readable), .tick, .drain, .workerResponded, .parsed(consumed: 1, .needsMore), .flushed(.drained, progressed: true)] {
            assertActions(&h, event, "")
        }
    }

    // MARK: WebSocket

    func testWebSocket_PingsOnTheInterval_AndDropsAPeerThatNeverAnswers() {
        var h = RestingState.webSocketOpen.harness
        h.advance(100)
        assertActions(&h, .tick, "ping, timer+15, flush")
        h.send(.flushed(.drained, progressed: true))
        h.advance(15)
        assertActions(&h, .tick, "close")
    }

    func testWebSocket_APongClearsThePongDeadline() {
        var h = RestingState.webSocketOpen.harness
        h.advance(100)
        h.send([.tick, .flushed(.drained, progressed: true), .ready(.readable), .read(.bytes(6, short: true))])
        assertActions(&h, .webSocketParsed(consumed: 6, .pong), "timer+100")
    }

    func testWebSocket_PeerClose_IsEchoed_ThenTheServerClosesFirst() {
        var h = RestingState.webSocketOpen.harness
        h.send([.ready(.readable), .read(.bytes(8, short: true))])
        assertActions(&h, .webSocketParsed(consumed: 8, .close(WebSocketCloseCode(rawValue: 4001))), "echo close 4001, timer off, flush")
        XCTAssertEqual(h.machine.webSocket?.closeCode?.rawValue, 4001)
        assertActions(&h, .flushed(.drained, progressed: true), "shutdown, timer+2")
        h.send(.ready(.readable))
        assertActions(&h, .discarded(endOfStream: true), "close")
    }

    func testWebSocket_ServerClose_WaitsForThePeer_ForTheCloseTimeout() {
        var h = RestingState.webSocketCloseSent.harness
        assertActions(&h, .outbound(.frame([1])), "release 1")
        h.send([.ready(.readable), .read(.bytes(8, short: true))])
        assertActions(&h, .webSocketParsed(consumed: 8, .close(.normalClosure)), "shutdown, timer+2")
        var silent = RestingState.webSocketCloseSent.harness
        silent.advance(7)
        assertActions(&silent, .tick, "close")
    }

    func testWebSocket_ProtocolViolation_SendsItsCode_AndReadsNoMore() {
        var h = RestingState.webSocketOpen.harness
        h.send([.ready(.readable), .read(.bytes(8, short: true))])
        // Failed, not closing: the close timer does not apply, the write deadline and the linger do.
        assertActions(&h, .webSocketParsed(consumed: 8, .failed(.protocolError)), "close frame 1002 \"\", timer off, flush")
        XCTAssertEqual(h.machine.webSocket?.stage, .closed)
        assertActions(&h, .flushed(.drained, progressed: true), "shutdown, timer+2")
    }

    func testWebSocket_PingFloodFromAPeerThatDoesNotRead_Closes1008() {
        var h = RestingState.webSocketOpen.harness
        h.send([.ready(.readable), .read(.bytes(16, short: true))])
        assertActions(&h, .webSocketParsed(consumed: 8, .ping([7], fits: true)), "pong[7], parse")
        assertActions(&h, .webSocketParsed(consumed: 8, .ping([7], fits: false)), "drop frames, close frame 1008 \"send buffer full\", timer+7, flush")
        XCTAssertFalse(h.machine.acceptsMessages)
    }

    func testUpgradeDecidedOnAWorker_SwitchesWhenAccepted() {
        var h = RestingState.upgradeAwaitingWorker.harness
        assertActions(&h, .workerAcceptedUpgrade, "switch")
        assertActions(&h, .switchedProtocols(unsent: 129), "timer+100, flush")
        XCTAssertEqual(h.http.phase, .upgraded)
    }
}
