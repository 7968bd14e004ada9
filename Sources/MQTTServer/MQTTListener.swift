import HTTP
import MQTT

/// The MQTT 5.0 listener: a `StreamService` for `HTTPServer`'s stream listeners, so MQTT runs on the
/// same epoll loops, TLS code and `ConnectionTransport` as HTTP. Each connection is an
/// `MQTTServerConnection` (the protocol state machine) inside an `MQTTStreamSession` (the glue), with
/// the broker's delegate behind it.
public struct MQTTListener: StreamService {
    public let broker: any MQTTBroker

    public init(broker: any MQTTBroker) {
        self.broker = broker
    }

    public func open(_ connection: StreamConnectionHandle, remoteAddress: String, now: UInt64) -> any StreamSession {
        let link = MQTTLink(handle: connection)
        return MQTTStreamSession(configuration: broker.configuration, delegate: broker.open(link), now: now)
    }
}

/// The glue between a stream connection and `MQTTServerConnection`: bytes, posted events, the
/// deadline and the drain go in as events; `.send`, `.close`, `.armDeadline` and reading pauses come
/// out as `StreamIO` requests, every other action goes to the broker's delegate, in order.
final class MQTTStreamSession: StreamSession {
    private var connection: MQTTServerConnection
    private var initial: [MQTTServerAction]
    private let delegate: any MQTTConnectionDelegate
    /// The protocol core holds input back (packets after CONNECT wait for its outcome, §3.1.4).
    private var corePaused = false
    /// Whether reading is paused now, for either reason (the core's, or the delegate's backlog).
    private var paused = false
    /// The connection ended for a client that read too slowly: nothing more is queued for it.
    private var overflowed = false

    init(configuration: MQTTServerConfiguration, delegate: any MQTTConnectionDelegate, now: UInt64) {
        (connection, initial) = MQTTServerConnection.open(configuration: configuration, now: now)
        self.delegate = delegate
    }

    func opened(io: inout StreamIO) {
        let actions = initial
        initial = []
        apply(actions, io: &io)
    }

    func received(_ bytes: UnsafeRawBufferPointer, io: inout StreamIO) {
        handle(.received(Array(bytes)), io: &io)
    }

    func posted(_ message: any Sendable, io: inout StreamIO) {
        if let event = message as? MQTTServerEvent {
            handle(event, io: &io)
        } else if let events = message as? [MQTTServerEvent] {
            for event in events { handle(event, io: &io) }
        } else if message is MQTTLink.InputReady {
            updateReading(io: &io)
        }
    }

    func deadlineReached(io: inout StreamIO) {
        handle(.deadlineFired, io: &io)
    }

    func draining(io: inout StreamIO) {
        // MQTT 5.0 §4.13.2: the Server tells the client why it goes away.
        handle(.disconnect(reasonCode: .serverShuttingDown, reasonString: "the server is shutting down"), io: &io)
    }

    func closed(now: UInt64) {
        var io = StreamIO(now: now)
        handle(.transportClosed, io: &io)
        delegate.closed()
    }

    private func handle(_ event: MQTTServerEvent, io: inout StreamIO) {
        apply(connection.handle(event, now: io.now), io: &io)
    }

    private func apply(_ actions: [MQTTServerAction], io: inout StreamIO) {
        var overflow = false
        for action in actions {
            switch action {
            case .send(let packet):
                guard !overflowed else { continue }
                let bytes = packet.encoded()
                // A client that does not read what it is sent: at the limit, what waits for it goes
                // and the connection ends (its QoS 1 messages stay in the Session, as unacknowledged).
                if io.unsentBytes + bytes.count > connection.configuration.maximumUnsentBytes {
                    overflowed = true
                    overflow = true
                    continue
                }
                io.send(bytes)
            case .sendBytes(let bytes): io.send(bytes)
            case .close: io.closeAfterSending()
            case .armDeadline(let time): io.setDeadline(time)
            case .pauseReading: corePaused = true
            case .resumeReading: corePaused = false
            case .authenticate, .publish, .subscribe, .unsubscribe, .delivered, .acknowledged, .discarded, .sessionDisconnected:
                delegate.perform(action)
            }
        }
        if overflow {
            io.discardUnsent()
            overflowed = false
            let limit = connection.configuration.maximumUnsentBytes
            handle(.disconnect(reasonCode: .quotaExceeded, reasonString: "more than \(limit) bytes waited for the client to read them"),
                   io: &io)
            overflowed = true
            return
        }
        updateReading(io: &io)
    }

    /// Reads while neither the core nor the delegate holds input back.
    private func updateReading(io: inout StreamIO) {
        let pause = corePaused || !delegate.acceptsInput
        guard pause != paused else { return }
        paused = pause
        if pause { io.pauseReading() } else { io.resumeReading() }
    }
}
