@testable import HTTP

/// Drives an `HTTPConnectionMachine` with a fake clock: no sockets, no threads, no time.
struct MachineHarness {
    typealias Event = HTTPConnectionMachine.Event
    typealias Action = HTTPConnectionMachine.Action

    /// Small, distinct durations so every deadline in a test says where it came from.
    static let limits = HTTPConnectionMachine.Limits(
        transport: ConnectionTransport.Limits(readAheadLimit: 100, outputHighWater: 1000, writeTimeout: 40, handshakeTimeout: 5, lingerTime: 2),
        http: HTTP1Exchange.Timeouts(header: 10, body: 20, idle: 30),
        webSocket: WebSocketControl.Timers(pingInterval: 100, pongTimeout: 15, closeTimeout: 7)
    )
    static let start: UInt64 = 1000

    var machine: HTTPConnectionMachine
    var now: UInt64 = start
    private var scratch: [Action] = []

    init(tls: Bool = false, limits: HTTPConnectionMachine.Limits = MachineHarness.limits) {
        machine = HTTPConnectionMachine(limits: limits, isTLS: tls, now: MachineHarness.start)
    }

    @discardableResult
    mutating func send(_ event: Event) -> [Action] {
        scratch.removeAll()
        machine.handle(event, now: now, into: &scratch)
        return scratch
    }

    /// Sends each event in turn (a script that builds a state); returns the last actions.
    @discardableResult
    mutating func send(_ events: [Event]) -> [Action] {
        var last: [Action] = []
        for event in events { last = send(event) }
        return last
    }

    mutating func advance(_ nanoseconds: UInt64) {
        now += nanoseconds
    }

    /// Moves the clock to the armed timer and reports `.tick`.
    @discardableResult
    mutating func fireTimer() -> [Action] {
        if let timer = machine.timer { now = Swift.max(now, timer) }
        return send(.tick)
    }

    var transport: ConnectionTransport { machine.transport }
    var http: HTTP1Exchange { machine.http }

    /// Actions in a compact form for tables: deadlines relative to the clock ("timer+10").
    func describe(_ actions: [Action]) -> String {
        actions.map { describe($0) }.joined(separator: ", ")
    }

    func describe(_ action: Action) -> String {
        switch action {
        case .read: "read"
        case .parse: "parse"
        case .flush: "flush"
        case .discardInput: "discard"
        case .dropHeldInput: "drop"
        case .shutdownWrite: "shutdown"
        case .close: "close"
        case let .setTimer(deadline?): deadline >= now ? "timer+\(deadline - now)" : "timer-\(now - deadline)"
        case .setTimer(nil): "timer off"
        case .writeContinue: "continue"
        case let .startBodyStream(keepAlive): "stream(\(keepAlive ? "keep" : "close"))"
        case .finishBodyStream: "finish stream"
        case let .failBodyStream(error): "fail stream(\(error))"
        case let .respondInline(keepAlive): "respond(\(keepAlive ? "keep" : "close"))"
        case let .upgradeInline(keepAlive): "upgrade(\(keepAlive ? "keep" : "close"))"
        case .submitToWorker: "submit"
        case .submitUpgradeToWorker: "submit upgrade"
        case let .writeResponse(source, keepAlive): "write \(source)(\(keepAlive ? "keep" : "close"))"
        case .switchToWebSocket: "switch"
        case let .sendPong(payload): "pong\(payload)"
        case .sendPing: "ping"
        case let .sendClose(code, reason): "close frame \(code.rawValue) \"\(reason)\""
        case let .echoClose(code): "echo close \(code.map { String($0.rawValue) } ?? "empty")"
        case .dropUnsentFrames: "drop frames"
        case let .appendFrame(bytes): "frame \(bytes.count)"
        case let .releaseFrame(count): "release \(count)"
        }
    }
}

/// Resting states: the machine waits for the outside world (socket, worker, consumer, clock).
/// Each is built by the events a real shell would report, from a fresh connection.
enum RestingState: String, CaseIterable {
    case handshaking
    case awaitingFirstByte
    case readingHead
    case readingBody
    case streamingBody
    case streamPaused
    case awaitingWorker
    case readPaused
    case upgradeAwaitingWorker
    case respondingBlocked
    case pipelineHeld
    case idle
    case closeAfterFlushBlocked
    case lingering
    case peerHalfClosedAwaitingWorker
    case webSocketOpen
    case webSocketCloseSent
    case webSocketClosing
    case closed

    static let request = 40

    /// The state, built from a fresh connection.
    var harness: MachineHarness {
        var h = MachineHarness(tls: self == .handshaking)
        switch self {
        case .handshaking, .awaitingFirstByte:
            break
        case .readingHead:
            h.send([.ready(.readable), .read(.bytes(5, short: true)), .parsed(consumed: 0, .needsMore)])
        case .readingBody:
            h.send([.ready(.readable), .read(.bytes(50, short: true)), .parsed(consumed: 40, .head(.init(hasBody: true))),
                    .parsed(consumed: 10, .needsMore)])
        case .streamingBody:
            h.send([.ready(.readable), .read(.bytes(50, short: true)), .parsed(consumed: 40, .head(.init(hasBody: true, streamed: true))),
                    .parsed(consumed: 10, .bodyPart(accepted: true)), .parsed(consumed: 0, .needsMore)])
        case .streamPaused:
            h = RestingState.streamingBody.harness
            h.send([.ready(.readable), .read(.bytes(30, short: true)), .parsed(consumed: 30, .bodyPart(accepted: false))])
        case .awaitingWorker:
            h.send(Self.requestTo(.worker))
        case .readPaused:
            h = RestingState.awaitingWorker.harness
            h.send([.ready(.readable), .read(.bytes(64, short: false)), .read(.bytes(64, short: false))])
        case .upgradeAwaitingWorker:
            h.send(Self.requestTo(.upgradeWorker))
        case .respondingBlocked:
            h.send(Self.requestTo(.inline) + [.responseQueued(unsent: 500, file: false, persist: true), .parsed(consumed: 0, .needsMore),
                                              .flushed(.blocked(unsent: 300, file: false), progressed: true)])
        case .pipelineHeld:
            // Two requests in one read; the first answer reaches the high-water mark and blocks.
            h.send([.ready(.readable), .read(.bytes(2 * Self.request, short: true)),
                    .parsed(consumed: Self.request, .head(.init(hasBody: false))), .parsed(consumed: 0, .requestEnd(.inline)),
                    .responseQueued(unsent: 1200, file: false, persist: true), .flushed(.blocked(unsent: 1100, file: false), progressed: true)])
        case .idle:
            h.send(Self.requestTo(.inline) + [.responseQueued(unsent: 500, file: false, persist: true), .parsed(consumed: 0, .needsMore),
                                              .flushed(.drained, progressed: true)])
        case .closeAfterFlushBlocked:
            h.send(Self.requestTo(.inline) + [.responseQueued(unsent: 500, file: false, persist: false),
                                              .flushed(.blocked(unsent: 300, file: false), progressed: true)])
        case .lingering:
            h = RestingState.closeAfterFlushBlocked.harness
            h.send([.ready(.writable), .flushed(.drained, progressed: true)])
        case .peerHalfClosedAwaitingWorker:
            h = RestingState.awaitingWorker.harness
            h.send([.ready(.hangUp), .read(.endOfStream)])
        case .webSocketOpen:
            h.send(Self.requestTo(.upgradeInline) + [.switchedProtocols(unsent: 129), .webSocketParsed(consumed: 0, .needsMore),
                                                     .flushed(.drained, progressed: true)])
        case .webSocketCloseSent:
            h = RestingState.webSocketOpen.harness
            h.send([.outbound(.close(.normalClosure, reason: "bye")), .flushed(.drained, progressed: true)])
        case .webSocketClosing:
            h = RestingState.webSocketOpen.harness
            h.send([.ready(.readable), .read(.bytes(8, short: true)), .webSocketParsed(consumed: 8, .close(WebSocketCloseCode(rawValue: 4001))),
                    .flushed(.blocked(unsent: 4, file: false), progressed: false)])
        case .closed:
            h.send(.ready(.error))
        }
        return h
    }

    /// One complete request without a body, read and parsed, answered by `route`.
    static func requestTo(_ route: HTTPConnectionMachine.Route) -> [HTTPConnectionMachine.Event] {
        [.ready(.readable), .read(.bytes(request, short: true)), .parsed(consumed: request, .head(.init(hasBody: false))),
         .parsed(consumed: 0, .requestEnd(route))]
    }
}

extension MachineHarness {
    /// Properties every transition keeps, whatever the state and the event; empty when all hold.
    /// The quiescence rules are the contract that rules out stalls: a machine that asks for nothing
    /// must have nothing it could do without the outside world.
    func invariantViolations(after actions: [Action], wasClosed: Bool) -> [String] {
        var violations: [String] = []
        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { violations.append(message()) }
        }
        let t = machine.transport
        let status = machine.protocolStatus
        let steps = actions.filter(\.isStep)
        check(steps.count <= 1, "more than one step: \(describe(actions))")
        if let step = steps.first { check(actions.last == step, "step not last: \(describe(actions))") }
        if wasClosed { check(actions.isEmpty, "a closed connection acted: \(describe(actions))") }
        if actions.contains(.close) {
            check(actions.last == .close, "close not last: \(describe(actions))")
            check(machine.isClosed, "close without closing")
        }
        for action in actions {
            if case let .setTimer(deadline) = action { check(deadline == machine.timer, "timer announced \(String(describing: deadline)) but armed \(String(describing: machine.timer))") }
        }
        if actions.contains(.read) { check(!t.isReadingPaused(status), "read while paused") }
        if actions.contains(.parse) { check(t.lifecycle == .open && !t.closeAfterFlush, "parse while \(t.lifecycle), closeAfterFlush \(t.closeAfterFlush)") }
        if t.closeAfterFlush { check(t.heldInput == 0 && !t.inputUnexamined, "input held after close-after-flush") }
        if machine.webSocket?.stage == .closed { check(t.closeAfterFlush || machine.isClosed, "WebSocket closed but connection not ending") }
        guard !machine.isClosed else { return violations }

        // The armed timer is the earliest deadline in force.
        var deadlines = [t.writeDeadline, t.deadline]
        if t.lifecycle == .open { deadlines.append(machine.webSocket.map { $0.deadline } ?? machine.http.deadline) }
        check(machine.timer == deadlines.compactMap { $0 }.min(), "timer \(String(describing: machine.timer)) is not the earliest deadline")
        // The idle clock runs exactly when everything owed went out.
        if t.lifecycle == .open, machine.webSocket == nil, machine.http.phase == .idle {
            check((machine.http.deadline == nil) == t.hasUnsentOutput, "idle deadline \(String(describing: machine.http.deadline)) with unsent output \(t.hasUnsentOutput)")
        }

        guard steps.isEmpty else { return violations }
        // Quiescent: nothing it could do alone.
        check(!(status.acceptsInput && t.inputUnexamined), "held input it could parse")
        check(!(t.flushPending && t.writable), "output it could write")
        switch t.lifecycle {
        case .open:
            check(!(t.readable && !t.peerClosed && !t.isReadingPaused(status)), "input it could read")
            check(!(t.closeAfterFlush && !t.flushPending && !status.awaitsCompletion), "everything sent but not lingering")
            check(!(t.peerClosed && !t.flushPending && !status.awaitsCompletion), "peer gone, nothing owed, still open")
        case .handshaking, .lingering:
            check(!t.readable, "input it could read")
        case .closed:
            break
        }
        // A connection that waits on nobody inside the server has a deadline.
        check(machine.timer != nil || status.awaitsCompletion, "open with no deadline and nothing awaited")
        return violations
    }
}
