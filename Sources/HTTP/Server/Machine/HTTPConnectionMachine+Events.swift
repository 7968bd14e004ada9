extension HTTPConnectionMachine {
    /// Everything that can happen to a connection, as the I/O shell reports it.
    enum Event: Hashable, Sendable {
        // MARK: Transport
        /// epoll's report for the socket.
        case ready(SocketReadiness)
        /// A `.read` step ended; `handshakeCompleted` when the TLS handshake finished during it,
        /// `ciphertextQueued` when TLS left output (handshake, tickets, alerts) the socket did not take.
        case read(ReadOutcome, handshakeCompleted: Bool = false, ciphertextQueued: Bool = false)
        /// A `.discardInput` step drained the socket, or saw the end of input.
        case discarded(endOfStream: Bool)
        /// A `.flush` step ended; `progressed` when any byte went out.
        case flushed(FlushOutcome, progressed: Bool)
        /// The armed timer is due (the clock is the `now` every event comes with).
        case tick
        /// The server began a graceful shutdown.
        case drain

        // MARK: HTTP/1.1
        /// A `.parse` step used `consumed` held bytes.
        case parsed(consumed: Int, ParseResult)
        /// A response was queued (after `.respondInline`, `.upgradeInline` or `.writeResponse`):
        /// `unsent` bytes wait, plus a file body when `file`; `persist` false ends the connection.
        case responseQueued(unsent: Int, file: Bool, persist: Bool)
        /// The worker pool answered the request in flight.
        case workerResponded
        /// The worker pool accepted the WebSocket upgrade in flight.
        case workerAcceptedUpgrade
        /// The consumer of a streamed body caught up and wants more.
        case bodyConsumerCaughtUp
        /// The 101 response was queued (`unsent` bytes) and the connection now speaks WebSocket.
        case switchedProtocols(unsent: Int)

        // MARK: WebSocket
        /// A `.parse` step on a WebSocket connection used `consumed` held bytes.
        case webSocketParsed(consumed: Int, WebSocketInput)
        /// A handler thread sent, closed or overflowed its send buffer.
        case outbound(WebSocketOutboundEvent)
    }

    /// What one HTTP parser step produced.
    enum ParseResult: Hashable, Sendable {
        /// Nothing more without more input.
        case needsMore
        case head(HeadInfo)
        /// A piece of a streamed body; `accepted` false when the consumer's buffer is full.
        case bodyPart(accepted: Bool)
        /// The request ended; how it is to be answered.
        case requestEnd(Route)
        /// Malformed or refused (RFC 9112 §9.6: answered with its status, then the connection closes).
        case failed(HTTPParserError)
    }

    /// What the responder said about a request once its head arrived.
    struct HeadInfo: Hashable, Sendable {
        var hasBody: Bool
        /// The body is streamed to a worker as it arrives (the request is dispatched now).
        var streamed: Bool = false
        /// RFC 9110 §10.1.1: answer 100 Continue (the body is acceptable and not already arriving).
        var sendContinue: Bool = false
        var keepAlive: Bool = true
    }

    enum Route: Hashable, Sendable {
        /// Answered on the I/O thread.
        case inline
        /// Answered on the worker pool.
        case worker
        /// A valid WebSocket handshake decided on the I/O thread.
        case upgradeInline
        /// A valid WebSocket handshake decided on the worker pool.
        case upgradeWorker
        /// The end of a body streamed to the worker already answering it.
        case streamed
    }

    /// What one WebSocket parser step produced.
    enum WebSocketInput: Hashable, Sendable {
        case needsMore
        /// A data frame (delivered to the handler when `acceptsMessages`) or a fragment.
        case message
        /// `fits` when the pong fits in the send buffer.
        case ping([UInt8], fits: Bool)
        case pong
        case close(WebSocketCloseCode?)
        /// A protocol violation (RFC 6455 §7.1.7) to be answered with this code.
        case failed(WebSocketCloseCode)
    }

    enum WebSocketOutboundEvent: Hashable, Sendable {
        case frame([UInt8])
        case close(WebSocketCloseCode, reason: String)
        case overflow
    }

    /// What the shell does. `read`, `parse`, `flush`, `discardInput`, `respondInline`,
    /// `upgradeInline`, `writeResponse` and `switchToWebSocket` are steps: at most one per event,
    /// always last, and the shell reports its outcome as the next event.
    enum Action: Hashable, Sendable, TransportActions {
        // MARK: Transport
        case read
        case parse
        case flush
        case discardInput
        case dropHeldInput
        /// TLS close_notify and a write shutdown: lingering begins.
        case shutdownWrite
        case close
        /// The earliest deadline changed: send `.tick` at or after it (nil: none).
        case setTimer(UInt64?)

        // MARK: HTTP/1.1
        case writeContinue
        /// Dispatch the request to the worker pool with its body as a stream.
        case startBodyStream(keepAlive: Bool)
        case finishBodyStream
        case failBodyStream(HTTPBodyStreamError)
        case respondInline(keepAlive: Bool)
        case upgradeInline(keepAlive: Bool)
        case submitToWorker
        case submitUpgradeToWorker
        case writeResponse(ResponseSource, keepAlive: Bool)
        /// Queue the 101 the worker accepted and switch.
        case switchToWebSocket

        // MARK: WebSocket
        case sendPong([UInt8])
        case sendPing
        case sendClose(WebSocketCloseCode, reason: String)
        /// Echo the peer's close (RFC 6455 §5.5.1): its code, or an empty close frame.
        case echoClose(WebSocketCloseCode?)
        /// Drop queued frames that have not started going out.
        case dropUnsentFrames
        case appendFrame([UInt8])
        /// A frame that will never be sent: give its bytes back to the send buffer's count.
        case releaseFrame(Int)

        /// True for the actions whose outcome the shell reports as the next event.
        var isStep: Bool {
            switch self {
            case .read, .parse, .flush, .discardInput, .respondInline, .upgradeInline, .writeResponse, .switchToWebSocket: true
            default: false
            }
        }
    }

    enum ResponseSource: Hashable, Sendable {
        /// The response the worker pool delivered.
        case worker
        /// The error response for a refused request.
        case rejection(HTTPParserError)
        /// 408: the request did not arrive in time.
        case timeout
    }
}
