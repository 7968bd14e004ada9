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
        for action in actions {
            switch action {
            case .send(let packet): io.send(packet.encoded())
            case .sendBytes(let bytes): io.send(bytes)
            case .close: io.closeAfterSending()
            case .armDeadline(let time): io.setDeadline(time)
            case .pauseReading: io.pauseReading()
            case .resumeReading: io.resumeReading()
            case .authenticate, .publish, .subscribe, .unsubscribe, .delivered, .acknowledged, .discarded, .sessionDisconnected:
                delegate.perform(action)
            }
        }
    }
}
