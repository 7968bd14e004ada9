/// The thread-safe face of one stream connection: other threads post messages to its session, which
/// receives them on the connection's I/O thread (`StreamSession.posted`). A message for a connection
/// that closed meanwhile is dropped (the descriptor and serial no longer match).
public final class StreamConnectionHandle: Sendable {
    private let handle: IOLoopHandle
    private let descriptor: Int32
    private let serial: UInt64
    /// The peer's address, as accepted.
    public let remoteAddress: String

    init(handle: IOLoopHandle, descriptor: Int32, serial: UInt64, remoteAddress: String) {
        self.handle = handle
        self.descriptor = descriptor
        self.serial = serial
        self.remoteAddress = remoteAddress
    }

    public func post(_ message: any Sendable) {
        handle.post(Completion(descriptor: descriptor, serial: serial, payload: .stream(message)))
    }
}
