import XCTest
@testable import HTTP

/// Explores the connection machine breadth-first from a fresh plain and a fresh TLS connection:
/// after a step, every outcome that step can have; at rest, every event the outside world can send.
/// Each transition is checked against `invariantViolations` (no stall, at most one step, a deadline
/// whenever nothing inside the server is awaited, …), so every event is tried in every reachable
/// state up to the depth bound.
final class ConnectionMachineExplorationTests: XCTestCase {
    typealias Event = HTTPConnectionMachine.Event
    typealias Action = HTTPConnectionMachine.Action

    /// Where the (modelled) HTTP parser stands, so parse outcomes follow a plausible request.
    enum ParserModel: Hashable { case head, headWithoutBody, bufferedBody, streamedBody }
    enum WorkerJob: Hashable { case none, response, upgrade }

    struct World: Hashable {
        var machine: HTTPConnectionMachine
        var now: UInt64
        /// The step the shell is performing; its outcome is the next event.
        var step: Action?
        var parser = ParserModel.head
        var worker = WorkerJob.none
        var drained = false
    }

    /// A world with every deadline taken relative to the clock: the machine only compares deadlines
    /// with `now` and sets `now + constant`, so worlds equal under this key behave alike forever.
    struct Key: Hashable {
        var transport: [Int]
        var http: HTTP1Exchange
        var webSocket: [WebSocketControl.Stage: WebSocketCloseCode?]
        var deadlines: [Int64?]
        var step: Action?
        var parser: ParserModel
        var worker: WorkerJob
        var drained: Bool

        init(_ world: World) {
            let m = world.machine
            func relative(_ deadline: UInt64?) -> Int64? { deadline.map { Int64(bitPattern: $0 &- world.now) } }
            deadlines = [m.transport.writeDeadline, m.transport.deadline, m.http.deadline, m.webSocket?.nextPing,
                         m.webSocket?.pongDeadline, m.webSocket?.closeDeadline, m.timer,
                         m.http.pace?.deadline, m.http.pace?.limit].map(relative)
            let t = m.transport
            transport = [t.isTLS, t.readable, t.writable, t.peerHungUp, t.peerClosed, t.inputUnexamined, t.fileBody, t.flushPending,
                         t.closeAfterFlush].map { $0 ? 1 : 0 } + [t.heldInput, t.unsent, t.lifecycle.hashValue]
            http = m.http
            http.deadline = nil
            // The pace's deadlines are compared relative to the clock above; what it keeps while
            // paused is already relative.
            if m.http.bodyStream == .flowing {
                http.pace?.pause(now: world.now)
            }
            webSocket = m.webSocket.map { [$0.stage: $0.closeCode] } ?? [:]
            step = world.step
            parser = world.parser
            worker = world.worker
            drained = world.drained
        }
    }

    func testEveryReachableState_KeepsTheInvariants() {
        explore(limits: MachineHarness.limits)
    }

    /// The same with a streamed body's minimum rate and overall limit (issue 14) switched on.
    func testEveryReachableState_WithAStreamPace_KeepsTheInvariants() {
        var limits = MachineHarness.limits
        limits.http.streamMinimumRate = 4_000_000_000
        limits.http.streamMaximum = 50
        explore(limits: limits)
    }

    private func explore(limits: HTTPConnectionMachine.Limits) {
        var seen = Set<Key>()
        var frontier: [World] = []
        for tls in [false, true] {
            let harness = MachineHarness(tls: tls, limits: limits)
            let world = World(machine: harness.machine, now: harness.now)
            frontier.append(world)
            seen.insert(Key(world))
        }
        var transitions = 0
        var closedReached = 0
        var phases = Set<String>()
        while !frontier.isEmpty {
            var next: [World] = []
            for world in frontier {
                for event in events(in: world) {
                    var harness = MachineHarness(limits: limits)
                    harness.machine = world.machine
                    harness.now = world.now
                    if event == .tick, let timer = world.machine.timer { harness.now = Swift.max(harness.now, timer) }
                    let actions = harness.send(event)
                    transitions += 1
                    for violation in harness.invariantViolations(after: actions, wasClosed: world.machine.isClosed) {
                        XCTFail("\(violation)\n  after \(event) in \(world.machine)\n  from step \(String(describing: world.step))")
                        return
                    }
                    var successor = world
                    successor.machine = harness.machine
                    successor.now = harness.now
                    successor.step = actions.last.flatMap { $0.isStep ? $0 : nil }
                    successor.parser = parserAfter(event, from: world.parser)
                    successor.worker = workerAfter(actions, event: event, from: world.worker)
                    if event == .drain { successor.drained = true }
                    if successor.machine.isClosed {
                        closedReached += 1
                        continue
                    }
                    phases.insert("\(successor.machine.transport.lifecycle)/\(successor.machine.http.phase)/\(successor.machine.webSocket?.stage.description ?? "-")")
                    if seen.insert(Key(successor)).inserted { next.append(successor) }
                }
            }
            frontier = next
        }
        // The exploration reached every lifecycle, phase and WebSocket stage.
        for expected in ["handshaking/readingHead/-", "open/readingHead/-", "open/readingBody/-", "open/responding/-", "open/idle/-",
                         "lingering/idle/-", "open/upgraded/open", "open/upgraded/closeSent", "lingering/upgraded/closed"] {
            XCTAssertTrue(phases.contains(expected), "never reached \(expected)")
        }
        XCTAssertGreaterThan(closedReached, 0)
        print("explored all \(seen.count) reachable states, \(transitions) transitions, \(phases.count) phase combinations")
    }

    // MARK: The world

    private func events(in world: World) -> [Event] {
        let machine = world.machine
        if let step = world.step { return outcomes(of: step, world: world) }
        var events: [Event] = [.ready(.readable), .ready(.writable), .ready(.hangUp), .ready([.readable, .writable]), .ready(.error)]
        if machine.timer != nil { events.append(.tick) }
        if !world.drained { events.append(.drain) }
        switch world.worker {
        case .none: break
        case .response: events.append(.workerResponded)
        case .upgrade: events += [.workerAcceptedUpgrade, .workerResponded]
        }
        if machine.http.bodyStream == .paused { events.append(.bodyConsumerCaughtUp) }
        if machine.webSocket != nil {
            events += [.outbound(.frame([1, 2, 3])), .outbound(.close(.normalClosure, reason: "bye")), .outbound(.overflow)]
        }
        return events
    }

    /// Unparsed input the modelled parsers accept before they must make progress or fail (the
    /// real ones bound heads, chunk lines and frames the same way).
    static let maxUnparsed = 40
    /// Input arrives and is consumed in units of this many bytes (a request, a body piece, a frame):
    /// counts between them would only multiply states that behave alike.
    static let unit = 40

    private func outcomes(of step: Action, world: World) -> [Event] {
        let held = world.machine.transport.heldInput
        let canWait = held <= Self.maxUnparsed
        switch step {
        case .read:
            if world.machine.transport.lifecycle == .handshaking {
                return [.read(.wouldBlock), .read(.wouldBlock, handshakeCompleted: true), .read(.bytes(Self.unit, short: true), handshakeCompleted: true),
                        .read(.wouldBlock, ciphertextQueued: true), .read(.endOfStream), .read(.failed)]
            }
            return [.read(.bytes(Self.unit, short: true)), .read(.bytes(Self.unit, short: false)), .read(.wouldBlock), .read(.endOfStream), .read(.failed)]
        case .parse:
            if world.machine.webSocket != nil {
                let frame = Swift.min(held, Self.unit)
                return (canWait ? [.webSocketParsed(consumed: 0, .needsMore)] : []) + [.webSocketParsed(consumed: frame, .message),
                        .webSocketParsed(consumed: frame, .ping([9], fits: true)), .webSocketParsed(consumed: frame, .ping([9], fits: false)),
                        .webSocketParsed(consumed: frame, .pong), .webSocketParsed(consumed: frame, .close(WebSocketCloseCode(rawValue: 4001))),
                        .webSocketParsed(consumed: frame, .close(nil)), .webSocketParsed(consumed: held, .failed(.protocolError))]
            }
            let head = Swift.min(held, Self.unit)
            switch world.parser {
            case .head:
                return (canWait ? [.parsed(consumed: 0, .needsMore)] : []) + [.parsed(consumed: head, .head(.init(hasBody: false))),
                        .parsed(consumed: head, .head(.init(hasBody: false, keepAlive: false))),
                        .parsed(consumed: head, .head(.init(hasBody: true))), .parsed(consumed: head, .head(.init(hasBody: true, sendContinue: true))),
                        .parsed(consumed: head, .head(.init(hasBody: true, streamed: true))),
                        .parsed(consumed: head, .head(.init(hasBody: true, streamed: true, sendContinue: true))),
                        .parsed(consumed: held, .failed(.invalidRequestLine))]
            case .headWithoutBody:
                return [.parsed(consumed: 0, .requestEnd(.inline)), .parsed(consumed: 0, .requestEnd(.worker)),
                        .parsed(consumed: 0, .requestEnd(.upgradeInline)), .parsed(consumed: 0, .requestEnd(.upgradeWorker))]
            case .bufferedBody:
                return [.parsed(consumed: held, .needsMore), .parsed(consumed: Swift.min(held, Self.unit), .requestEnd(.inline)),
                        .parsed(consumed: Swift.min(held, Self.unit), .requestEnd(.worker)), .parsed(consumed: held, .failed(.payloadTooLarge))]
            case .streamedBody:
                return (canWait ? [.parsed(consumed: 0, .needsMore)] : []) + [.parsed(consumed: held, .bodyPart(accepted: true)),
                        .parsed(consumed: held, .bodyPart(accepted: false)), .parsed(consumed: Swift.min(held, Self.unit), .requestEnd(.streamed)),
                        .parsed(consumed: held, .failed(.invalidChunk))]
            }
        case .flush:
            return [.flushed(.drained, progressed: true), .flushed(.blocked(unsent: 300, file: false), progressed: true),
                    .flushed(.blocked(unsent: 1100, file: false), progressed: false), .flushed(.blocked(unsent: 0, file: true), progressed: true),
                    .flushed(.failed, progressed: false)]
        case .discardInput:
            return [.discarded(endOfStream: false), .discarded(endOfStream: true)]
        case let .respondInline(keepAlive), let .writeResponse(_, keepAlive):
            // The responder may close a connection the request would keep, never the reverse.
            let closing: [Event] = [.responseQueued(unsent: 500, file: false, persist: false), .responseQueued(unsent: 1200, file: false, persist: false)]
            guard keepAlive else { return closing }
            return closing + [.responseQueued(unsent: 500, file: false, persist: true), .responseQueued(unsent: 1200, file: false, persist: true),
                              .responseQueued(unsent: 100, file: true, persist: true)]
        case let .upgradeInline(keepAlive):
            return [.switchedProtocols(unsent: 129), .responseQueued(unsent: 500, file: false, persist: keepAlive)]
        case .switchToWebSocket:
            return [.switchedProtocols(unsent: 129)]
        default:
            XCTFail("\(step) is not a step")
            return []
        }
    }

    private func parserAfter(_ event: Event, from model: ParserModel) -> ParserModel {
        guard case let .parsed(_, result) = event else { return model }
        switch result {
        case let .head(info): return !info.hasBody ? .headWithoutBody : info.streamed ? .streamedBody : .bufferedBody
        case .requestEnd: return .head
        case .needsMore, .bodyPart, .failed: return model
        }
    }

    private func workerAfter(_ actions: [Action], event: Event, from job: WorkerJob) -> WorkerJob {
        var job = job
        if event == .workerResponded || event == .workerAcceptedUpgrade { job = .none }
        for action in actions {
            switch action {
            case .submitToWorker, .startBodyStream: job = .response
            case .submitUpgradeToWorker: job = .upgrade
            default: break
            }
        }
        return job
    }
}

extension WebSocketControl.Stage: CustomStringConvertible {
    public var description: String {
        switch self {
        case .open: "open"
        case .closeSent: "closeSent"
        case .closed: "closed"
        }
    }
}
