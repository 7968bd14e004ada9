/// One NOTIFY delivered to a `PGListener`.
public struct PGNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let processID: Int32
}
