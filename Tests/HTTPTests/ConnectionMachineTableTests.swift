import XCTest
@testable import HTTP

/// Every event the outside world can send (socket readiness, the clock, shutdown, the worker pool,
/// a body consumer, a WebSocket handler thread) in every resting state of the connection machine,
/// with the actions expected. Step outcomes (read, parse, flush… results) are covered by
/// `ConnectionMachineExplorationTests`, which tries every outcome of every step.
final class ConnectionMachineTableTests: XCTestCase {
    typealias Event = HTTPConnectionMachine.Event

    /// nil: move the clock to the armed timer, then `.tick`.
    static let events: [(name: String, event: Event?)] = [
        ("readable", .ready(.readable)), ("writable", .ready(.writable)), ("hang-up", .ready(.hangUp)), ("error", .ready(.error)),
        ("tick early", .tick), ("tick due", nil), ("drain", .drain), ("worker responded", .workerResponded),
        ("worker accepted upgrade", .workerAcceptedUpgrade), ("consumer caught up", .bodyConsumerCaughtUp),
        ("send frame", .outbound(.frame([1, 2, 3]))), ("send close", .outbound(.close(.normalClosure, reason: "bye"))),
        ("send overflow", .outbound(.overflow)),
    ]

    /// The armed timer of each state (relative to its clock), then one expectation per event in
    /// the order of `events`. "timer+N" arms a deadline N ns away; "write timeout(close)" is the 408.
    static let table: [RestingState: (timer: String, expected: [String])] = [
        .handshaking: ("+5", ["read", "", "read", "close", "", "close", "close", "", "", "", "release 3", "", ""]),
        .awaitingFirstByte: ("+10", ["read", "", "read", "close", "", "close", "close", "", "", "", "release 3", "", ""]),
        .readingHead: ("+10", ["read", "", "read", "close", "", "timer off, write timeout(close)", "", "", "", "", "release 3", "", ""]),
        .readingBody: ("+20", ["read", "", "read", "close", "", "timer off, write timeout(close)", "", "", "", "", "release 3", "", ""]),
        .streamingBody: ("+20", [
            "read", "", "read", "close", "", "fail stream(timedOut), timer off, write timeout(close)", "",
            "fail stream(clientDisconnected), timer off, write worker(close)", "", "", "release 3", "", "",
        ]),
        .streamPaused: ("off", [
            "read", "", "read", "close", "", "", "", "fail stream(clientDisconnected), write worker(close)", "",
            "timer+20, parse", "release 3", "", "",
        ]),
        .awaitingWorker: ("off", ["read", "", "read", "close", "", "", "", "write worker(keep)", "", "", "release 3", "", ""]),
        .readPaused: ("off", ["", "", "", "close", "", "", "", "write worker(keep)", "", "", "release 3", "", ""]),
        .upgradeAwaitingWorker: ("off", ["read", "", "read", "close", "", "", "", "write worker(keep)", "switch", "", "release 3", "", ""]),
        .respondingBlocked: ("+40", ["read", "flush", "read", "close", "", "close", "", "", "", "", "release 3", "", ""]),
        .pipelineHeld: ("+40", ["read", "flush", "read", "close", "", "close", "", "", "", "", "release 3", "", ""]),
        .idle: ("+30", ["read", "", "read", "close", "", "close", "close", "", "", "", "release 3", "", ""]),
        .closeAfterFlushBlocked: ("+40", ["read", "flush", "read", "close", "", "close", "", "", "", "", "release 3", "", ""]),
        .lingering: ("+2", ["discard", "", "discard", "close", "", "close", "", "", "", "", "release 3", "", ""]),
        .peerHalfClosedAwaitingWorker: ("off", ["", "", "", "close", "", "", "", "write worker(keep)", "", "", "release 3", "", ""]),
        .webSocketOpen: ("+100", [
            "read", "", "read", "close", "", "ping, timer+15, flush", "close frame 1001 \"server shutting down\", timer+7, flush",
            "", "", "", "frame 3, flush", "close frame 1000 \"bye\", timer+7, flush",
            "drop frames, close frame 1008 \"send buffer full\", timer+7, flush",
        ]),
        .webSocketCloseSent: ("+7", ["read", "", "read", "close", "", "close", "", "", "", "", "release 3", "", "drop frames"]),
        .webSocketClosing: ("+40", ["read", "flush", "read", "close", "", "close", "", "", "", "", "release 3", "", "drop frames"]),
        .closed: ("off", ["", "", "", "", "", "", "", "", "", "", "", "", ""]),
    ]

    func testEveryEvent_InEveryRestingState() {
        XCTAssertEqual(Set(Self.table.keys), Set(RestingState.allCases), "every state has a row")
        var cells = 0
        for state in RestingState.allCases {
            let base = state.harness
            guard let row = Self.table[state] else { continue }
            let timer = base.machine.timer.map { "+\($0 - base.now)" } ?? "off"
            XCTAssertEqual(timer, row.timer, "\(state) timer")
            XCTAssertEqual(row.expected.count, Self.events.count, "\(state) row length")
            for (index, (name, event)) in Self.events.enumerated() where index < row.expected.count {
                var harness = base
                let wasClosed = harness.machine.isClosed
                let actions = event.map { harness.send($0) } ?? harness.fireTimer()
                XCTAssertEqual(harness.describe(actions), row.expected[index], "\(state) + \(name)")
                for violation in harness.invariantViolations(after: actions, wasClosed: wasClosed) {
                    XCTFail("\(state) + \(name): \(violation)")
                }
                cells += 1
            }
        }
        XCTAssertEqual(cells, RestingState.allCases.count * Self.events.count)
    }

    /// The resting states really rest: the script that built each one ended without a step.
    func testRestingStates_WaitForTheOutsideWorld() {
        for state in RestingState.allCases {
            let harness = state.harness
            XCTAssertTrue(harness.invariantViolations(after: [], wasClosed: false).isEmpty, "\(state)")
        }
    }
}
