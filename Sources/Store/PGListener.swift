/// A dedicated connection for LISTEN/NOTIFY, outside the pool, for one thread that loops on
/// `wait(timeout:)`. Send notifications from any pooled connection with
/// `SELECT pg_notify($1, $2)`.
///
/// If the connection drops, `wait` throws `StoreError.unavailable`; the next call reconnects
/// and listens again on every channel. Notifications sent meanwhile are lost, so after an error
/// the caller should re-read whatever state the notifications announce.
public final class PGListener {
    private let settings: ConnectionSettings
    private let counters: ConnectionCounters
    private var connection: LibPQConnection?
    private var channels: [String] = []

    /// Connects lazily, on the first `listen` or `wait`. `counters` may be shared by the listeners
    /// that follow one another on the same channels, so that a reconnect counts across them.
    public init(url: String, connectTimeout: Double = 5, counters: ConnectionCounters = ConnectionCounters()) throws(StoreError) {
        settings = try ConnectionSettings(url: url, connectTimeout: connectTimeout)
        self.counters = counters
    }

    /// Starts listening on `channel` (any string; it is quoted as an identifier).
    public func listen(_ channel: String) throws(StoreError) {
        if !channels.contains(channel) { channels.append(channel) }
        let connection = try connected()
        try run("LISTEN", channel, on: connection)
    }

    public func unlisten(_ channel: String) throws(StoreError) {
        channels.removeAll { $0 == channel }
        guard let connection else { return }
        try run("UNLISTEN", channel, on: connection)
    }

    /// Waits up to `timeout` seconds; returns the notifications that arrived (maybe none).
    public func wait(timeout: Double) throws(StoreError) -> [PGNotification] {
        let connection = try connected()
        let pending = connection.takeNotifications()
        if !pending.isEmpty { return pending }
        switch connection.waitForInput(timeout: timeout) {
        case .timedOut: return []
        case .failed(let reason): throw disconnect(reason)
        case .readable:
            guard connection.consumeInput(), connection.isOK else { throw disconnect(connection.errorMessage) }
            return connection.takeNotifications()
        }
    }

    /// Closes the connection; a later `listen` or `wait` opens a new one.
    public func close() {
        connection = nil
    }

    /// The server process of the current connection, if connected.
    public var backendProcessID: Int32? { connection?.backendPID }

    private func connected() throws(StoreError) -> LibPQConnection {
        if let connection, connection.isOK { return connection }
        if let connection {
            counters.recordLost()
            settings.lost(connection)
        }
        connection = nil
        let fresh: LibPQConnection
        do {
            fresh = try settings.connect()
        } catch {
            counters.recordFailedOpen()
            throw error
        }
        counters.recordOpened()
        for channel in channels { try run("LISTEN", channel, on: fresh) }
        connection = fresh
        return fresh
    }

    private func run(_ command: String, _ channel: String, on connection: LibPQConnection) throws(StoreError) {
        do throws(StoreError) {
            _ = try connection.exec("\(command) \(try connection.escapeIdentifier(channel))")
        } catch {
            if !connection.isOK, self.connection != nil {
                self.connection = nil
                counters.recordLost()
                settings.lost(connection)
            }
            throw error
        }
    }

    private func disconnect(_ reason: String) -> StoreError {
        if let connection {
            counters.recordLost()
            settings.lost(connection)
        }
        connection = nil
        return .unavailable("listener connection lost: \(reason)")
    }
}
