/// The state machine of one server connection: a value type fed events (bytes read, socket
/// writable, worker done, body consumer caught up, peer half-close, timer due, upgrade…) that
/// answers with actions (read, parse, flush, drop input, linger, close, set the timer, dispatch to a
/// worker…). It does no I/O and reads no clock: `HTTPConnection` is the thin shell that performs
/// the actions and reports their outcomes, and the tests drive it with a fake clock.
///
/// Two halves: `ConnectionTransport` (socket readiness, TLS handshake, held input, unsent output,
/// close-after-flush, lingering, write deadline) knows no protocol; `HTTP1Exchange` (and
/// `WebSocketControl` after an upgrade) is the protocol on top. Every event that did not ask for a
/// step itself ends with `settlePhase` and `ConnectionTransport.nextStep`, which derive the next
/// step from state alone: whatever path drained the output, held input is parsed next.
struct HTTPConnectionMachine: Hashable, Sendable {
    struct Limits: Hashable, Sendable {
        var transport = ConnectionTransport.Limits()
        var http = HTTP1Exchange.Timeouts()
        var webSocket = WebSocketControl.Timers()
    }

    let limits: Limits
    private(set) var transport: ConnectionTransport
    private(set) var http = HTTP1Exchange()
    /// Set once the connection switched to WebSocket.
    private(set) var webSocket: WebSocketControl?
    /// The deadline last announced with `.setTimer`.
    private(set) var timer: UInt64?

    /// A connection accepted at `now`: a TLS one starts with its handshake, a plain one waits for
    /// its first head. The shell arms `timer` itself.
    init(limits: Limits, isTLS: Bool, now: UInt64) {
        self.limits = limits
        transport = ConnectionTransport(limits: limits.transport, isTLS: isTLS, now: now)
        if !isTLS { http.deadline = now &+ limits.http.header }
        timer = nextDeadline
    }

    var isClosed: Bool { transport.isClosed }

    /// Messages from a WebSocket peer reach the handler only while the connection is open.
    var acceptsMessages: Bool { webSocket?.stage == .open }

    /// What the protocol tells the transport.
    var protocolStatus: ProtocolStatus {
        ProtocolStatus(acceptsInput: acceptsInput, awaitsCompletion: http.inFlight != nil)
    }

    private var acceptsInput: Bool {
        guard transport.lifecycle == .open, !transport.closeAfterFlush else { return false }
        if let webSocket { return webSocket.stage != .closed }
        // One request at a time, and no new response while the last one is still mostly unsent.
        if let inFlight = http.inFlight, inFlight != .worker || http.bodyStream != .flowing { return false }
        return !transport.outputIsHigh
    }

    private var nextDeadline: UInt64? {
        let transportDeadline = earliest(transport.writeDeadline, transport.deadline)
        guard transport.lifecycle == .open else { return transportDeadline }
        return earliest(transportDeadline, webSocket.map { $0.deadline } ?? http.deadline)
    }

    // MARK: Handling events

    /// Applies `event` at time `now` and appends to `actions` what the shell must do, in order.
    mutating func handle(_ event: Event, now: UInt64, into actions: inout [Action]) {
        guard !transport.isClosed else { return }
        var effects: ConnectionTransport.Effects = []
        var step: Action?
        switch event {
        case let .ready(readiness):
            if !transport.ready(readiness) { transport.close(into: &effects) }
        case let .read(outcome, handshakeCompleted, ciphertextQueued):
            read(outcome, handshakeCompleted: handshakeCompleted, ciphertextQueued: ciphertextQueued, now: now, effects: &effects, actions: &actions)
        case let .discarded(endOfStream):
            transport.discardCompleted(endOfStream: endOfStream, into: &effects)
        case let .flushed(outcome, progressed):
            if !transport.flushed(outcome, progressed: progressed, now: now) { transport.close(into: &effects) }
        case .tick:
            step = tick(now: now, effects: &effects, actions: &actions)
        case .drain:
            drain(now: now, effects: &effects, actions: &actions)
        case let .parsed(consumed, result):
            step = parsed(consumed: consumed, result, now: now, effects: &effects, actions: &actions)
        case let .responseQueued(unsent, file, persist):
            guard http.inFlight != nil else { break }
            http.inFlight = nil
            transport.queued(unsent: unsent, file: file)
            if !persist { transport.closeAfterFlushing(into: &effects) }
        case .workerResponded:
            step = workerResponded(actions: &actions)
        case .workerAcceptedUpgrade:
            if http.inFlight == .upgradeWorker { step = .switchToWebSocket }
        case .bodyConsumerCaughtUp:
            http.resumeStream(now: now, timeouts: limits.http)
        case let .switchedProtocols(unsent):
            switchedProtocols(unsent: unsent, now: now, actions: &actions)
        case let .webSocketParsed(consumed, input):
            webSocketParsed(consumed: consumed, input, now: now, effects: &effects, actions: &actions)
        case let .outbound(outbound):
            self.outbound(outbound, now: now, actions: &actions)
        }
        if step == nil, !transport.isClosed {
            settlePhase(now: now, effects: &effects)
            if !transport.isClosed { step = transport.nextStep(protocolStatus, now: now, effects: &effects).map(Self.action) }
        }
        effects.finish(step: step, deadline: nextDeadline, timer: &timer, into: &actions)
    }

    private static func action(_ step: ConnectionTransport.Step) -> Action {
        switch step {
        case .read: .read
        case .parse: .parse
        case .flush: .flush
        case .discardInput: .discardInput
        }
    }

    // MARK: Transport events

    private mutating func read(
        _ outcome: ReadOutcome, handshakeCompleted: Bool, ciphertextQueued: Bool, now: UInt64,
        effects: inout ConnectionTransport.Effects, actions: inout [Action]
    ) {
        if ciphertextQueued { transport.ciphertextQueued() }
        if handshakeCompleted, transport.lifecycle == .handshaking {
            transport.handshakeCompleted()
            http.deadline = now &+ limits.http.header
        }
        let held = transport.readCompleted(outcome)
        switch outcome {
        case .bytes(let count, _):
            guard held > 0 else {
                // Read after the connection was ended: thrown away.
                actions.append(.dropHeldInput)
                return
            }
            http.receivedAny = true
            // A streamed body's timeout measures silence, and its pace earns time.
            http.streamReceived(count, now: now, timeouts: limits.http)
        case .endOfStream:
            if http.bodyStream != nil {
                // The body can never complete: its consumer learns it and nobody waits for an answer.
                actions.append(.failBodyStream(.clientDisconnected))
                http.abandonRequest()
                transport.close(into: &effects)
            }
        case .failed:
            transport.close(into: &effects)
        case .wouldBlock:
            break
        }
    }

    private mutating func tick(now: UInt64, effects: inout ConnectionTransport.Effects, actions: inout [Action]) -> Action? {
        if transport.hasExpired(at: now) {
            transport.close(into: &effects)
            return nil
        }
        guard transport.lifecycle == .open else { return nil }
        if var webSocket {
            switch webSocket.tick(timers: limits.webSocket, now: now) {
            case .none: break
            case .sendPing:
                actions.append(.sendPing)
                transport.queuedSmall()
            case .drop:
                // No closing handshake: reported as 1006 unless one had started.
                transport.close(into: &effects)
            }
            self.webSocket = webSocket
            return nil
        }
        guard let deadline = http.deadline, now >= deadline else { return nil }
        switch http.phase {
        case .idle, .responding, .upgraded:
            transport.close(into: &effects)
        case .readingHead where transport.heldInput == 0 && !http.requestOpen:
            // Connected but never sent a byte of this request.
            transport.close(into: &effects)
        case .readingHead, .readingBody:
            if http.bodyStream != nil { actions.append(.failBodyStream(.timedOut)) }
            http.refuseRequest()
            return .writeResponse(.timeout, keepAlive: false)
        }
        return nil
    }

    private mutating func drain(now: UInt64, effects: inout ConnectionTransport.Effects, actions: inout [Action]) {
        http.draining = true
        switch transport.lifecycle {
        case .handshaking:
            transport.close(into: &effects)
        case .open:
            if webSocket != nil {
                startWebSocketClose(.goingAway, reason: "server shutting down", now: now, actions: &actions)
            } else if http.phase == .idle || (http.phase == .readingHead && transport.heldInput == 0 && !http.requestOpen),
                      http.inFlight == nil, !transport.hasUnsentOutput {
                transport.close(into: &effects)
            }
        case .lingering, .closed:
            break
        }
    }

    // MARK: HTTP/1.1 events

    private mutating func parsed(
        consumed: Int, _ result: ParseResult, now: UInt64, effects: inout ConnectionTransport.Effects, actions: inout [Action]
    ) -> Action? {
        // Between requests the parser has nothing to say without new input.
        let isRequestEnd = if case .requestEnd = result { true } else { false }
        transport.consumed(consumed, needsMore: result == .needsMore || (isRequestEnd && consumed >= transport.heldInput))
        switch result {
        case .needsMore:
            break
        case let .head(info):
            http.requestOpen = true
            http.requestHasBody = info.hasBody
            http.keepAlive = info.keepAlive
            if info.hasBody {
                http.phase = .readingBody
                http.deadline = now &+ limits.http.body
            }
            if info.sendContinue {
                actions.append(.writeContinue)
                transport.queuedSmall()
            }
            if info.streamed {
                http.inFlight = .worker
                http.inFlightKeepAlive = info.keepAlive && !http.draining
                http.startStream(now: now, timeouts: limits.http)
                actions.append(.startBodyStream(keepAlive: http.inFlightKeepAlive))
            }
        case let .bodyPart(accepted):
            // Not while we hold the client back.
            if !accepted { http.pauseStream(now: now) }
        case let .requestEnd(route):
            return requestEnded(route, actions: &actions)
        case let .failed(error):
            if http.bodyStream != nil { actions.append(.failBodyStream(error == .payloadTooLarge ? .payloadTooLarge : .malformed)) }
            http.refuseRequest()
            // What is left of the input is never parsed.
            transport.dropHeldInput(into: &effects)
            return .writeResponse(.rejection(error), keepAlive: false)
        }
        return nil
    }

    private mutating func requestEnded(_ route: Route, actions: inout [Action]) -> Action? {
        http.requestOpen = false
        http.requestHasBody = false
        // Leaving .responding later restarts the idle clock from this request.
        http.phase = .responding
        http.deadline = nil
        let keepAlive = http.keepAlive && !http.draining
        switch route {
        case .streamed:
            guard http.bodyStream != nil else { return nil }
            http.endStream()
            actions.append(.finishBodyStream)
        case .inline:
            http.inFlight = .inline
            return .respondInline(keepAlive: keepAlive)
        case .upgradeInline:
            http.inFlight = .inline
            return .upgradeInline(keepAlive: keepAlive)
        case .worker:
            http.inFlight = .worker
            http.inFlightKeepAlive = keepAlive
            actions.append(.submitToWorker)
        case .upgradeWorker:
            http.inFlight = .upgradeWorker
            http.inFlightKeepAlive = keepAlive
            actions.append(.submitUpgradeToWorker)
        }
        return nil
    }

    private mutating func workerResponded(actions: inout [Action]) -> Action? {
        // A late answer to a request that was refused or timed out meanwhile is dropped.
        guard http.inFlight == .worker || http.inFlight == .upgradeWorker else { return nil }
        // A response before the end of a streamed body: the rest of the body is never read, so
        // the connection cannot carry another request.
        let bodyUnread = http.bodyStream != nil
        if bodyUnread {
            actions.append(.failBodyStream(.clientDisconnected))
            http.endStream()
            http.requestOpen = false
            http.requestHasBody = false
            http.phase = .responding
            http.deadline = nil
        }
        return .writeResponse(.worker, keepAlive: http.inFlightKeepAlive && !http.draining && !bodyUnread)
    }

    private mutating func switchedProtocols(unsent: Int, now: UInt64, actions: inout [Action]) {
        guard http.inFlight != nil else { return }
        http.inFlight = nil
        http.phase = .upgraded
        http.deadline = nil
        transport.queued(unsent: unsent, file: false)
        webSocket = WebSocketControl(timers: limits.webSocket, now: now)
        if http.draining { startWebSocketClose(.goingAway, reason: "server shutting down", now: now, actions: &actions) }
    }

    /// Moves to the phase the exchange implies; a phase's deadline starts when the phase begins.
    private mutating func settlePhase(now: UInt64, effects: inout ConnectionTransport.Effects) {
        guard transport.lifecycle == .open, webSocket == nil else { return }
        if http.inFlight != nil {
            if http.bodyStream != nil {
                if http.phase != .readingBody {
                    http.phase = .readingBody
                    http.deadline = http.flowingDeadline(now: now, timeouts: limits.http)
                }
            } else if http.phase != .responding {
                http.phase = .responding
                http.deadline = nil
            }
        } else if http.requestOpen {
            // A head without a body ends at the next parser step.
            if http.requestHasBody, http.phase != .readingBody {
                http.phase = .readingBody
                http.deadline = now &+ limits.http.body
            }
        } else if transport.heldInput > 0 {
            if http.phase != .readingHead {
                http.phase = .readingHead
                http.deadline = nil
            }
            // A request held back behind our own unsent output is not the client's delay: the write
            // deadline governs until the output falls below the high-water mark.
            if transport.outputIsHigh {
                http.deadline = nil
            } else if http.deadline == nil {
                http.deadline = now &+ limits.http.header
            }
        } else if http.phase == .readingHead, !http.receivedAny {
            // Still waiting for the first byte; the clock runs from accept.
        } else {
            if http.phase != .idle {
                http.phase = .idle
                http.deadline = nil
            }
            // A response still being written is governed by the write deadline alone.
            if transport.hasUnsentOutput {
                http.deadline = nil
            } else {
                if http.deadline == nil { http.deadline = now &+ limits.http.idle }
                if http.draining { transport.close(into: &effects) }
            }
        }
    }

    // MARK: WebSocket events

    private mutating func webSocketParsed(
        consumed: Int, _ input: WebSocketInput, now: UInt64, effects: inout ConnectionTransport.Effects, actions: inout [Action]
    ) {
        // A frame needs bytes: with none held there is nothing more to parse.
        transport.consumed(consumed, needsMore: input == .needsMore || consumed >= transport.heldInput)
        guard webSocket != nil else { return }
        switch input {
        case .needsMore, .message:
            break
        case let .ping(payload, fits):
            // RFC 6455 §5.5.2: answer with a pong carrying the same payload.
            guard acceptsMessages else { break }
            if fits {
                actions.append(.sendPong(payload))
                transport.queuedSmall()
            } else {
                // A peer that pings without reading must not grow our output past the limit either.
                actions.append(.dropUnsentFrames)
                startWebSocketClose(.policyViolation, reason: "send buffer full", now: now, actions: &actions)
            }
        case .pong:
            webSocket?.pongReceived()
        case let .close(code):
            // RFC 6455 §5.5.1: echo the status code; then the server closes the TCP connection first.
            if webSocket?.peerClosed(code) == true {
                actions.append(.echoClose(code))
                transport.queuedSmall()
            }
            transport.closeAfterFlushing(into: &effects)
        case let .failed(code):
            // RFC 6455 §7.1.7: fail the connection with the matching status code.
            startWebSocketClose(code, reason: "", now: now, actions: &actions)
            webSocket?.fail()
            transport.closeAfterFlushing(into: &effects)
        }
    }

    private mutating func outbound(_ outbound: WebSocketOutboundEvent, now: UInt64, actions: inout [Action]) {
        guard let control = webSocket else {
            if case let .frame(bytes) = outbound { actions.append(.releaseFrame(bytes.count)) }
            return
        }
        switch outbound {
        case let .frame(bytes):
            if control.stage == .open, !transport.closeAfterFlush, transport.lifecycle == .open {
                actions.append(.appendFrame(bytes))
                transport.queuedSmall()
            } else {
                actions.append(.releaseFrame(bytes.count))
            }
        case let .close(code, reason):
            startWebSocketClose(code, reason: reason, now: now, actions: &actions)
        case .overflow:
            actions.append(.dropUnsentFrames)
            startWebSocketClose(.policyViolation, reason: "send buffer full", now: now, actions: &actions)
        }
    }

    private mutating func startWebSocketClose(_ code: WebSocketCloseCode, reason: String, now: UInt64, actions: inout [Action]) {
        guard var control = webSocket, transport.lifecycle == .open else { return }
        if control.startClose(code, timers: limits.webSocket, now: now) {
            actions.append(.sendClose(code, reason: reason))
            transport.queuedSmall()
        }
        webSocket = control
    }
}
