import HTTP
import MQTT

/// The service behind an MQTT listener: it opens one delegate per connection, which carries out the
/// connection's service actions (authenticate, publish, subscribe, ...) and answers through the
/// connection's `MQTTLink`.
public protocol MQTTBroker: Sendable {
    /// Limits and announcements of every connection (MQTT 5.0 §3.2.2.3).
    var configuration: MQTTServerConfiguration { get }
    /// A connection was accepted (on its I/O thread).
    func open(_ link: MQTTLink) -> any MQTTConnectionDelegate
}

/// One connection's side of the service. Called on the connection's I/O thread, one call at a time:
/// it must not block (work that may goes to other threads, whose answers come back via the link).
public protocol MQTTConnectionDelegate: AnyObject {
    /// One of `.authenticate`, `.publish`, `.subscribe`, `.unsubscribe`, `.delivered`,
    /// `.acknowledged`, `.discarded`, `.sessionDisconnected` (the rest is the listener's).
    func perform(_ action: MQTTServerAction)
    /// False while the work the connection handed over is more than the service takes from one
    /// connection: the listener reads no more from it until the service calls `MQTTLink.resumeInput`.
    var acceptsInput: Bool { get }
    /// The connection is gone; nothing more will be called.
    func closed()
}

/// How the service reaches one connection from any thread: its events are handled on the
/// connection's I/O thread, in the order posted (a dropped connection drops them).
public final class MQTTLink: Sendable {
    private let handle: StreamConnectionHandle

    init(handle: StreamConnectionHandle) { self.handle = handle }

    public var remoteAddress: String { handle.remoteAddress }

    public func post(_ event: MQTTServerEvent) {
        handle.post(event)
    }

    /// Several events at once (a fan-out batch), handled in order in one go.
    public func post(_ events: [MQTTServerEvent]) {
        guard !events.isEmpty else { return }
        handle.post(events)
    }

    /// The delegate's work drained: the listener asks `acceptsInput` again and reads on if it may.
    public func resumeInput() {
        handle.post(InputReady())
    }

    /// What `resumeInput` posts.
    struct InputReady: Sendable {}
}
