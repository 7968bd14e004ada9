import Dispatch
import Synchronization

/// A pool of PostgreSQL connections over libpq, for a thread-per-request server: every call
/// blocks its thread until the server answers.
///
/// Connections open lazily, up to `poolSize`. A checkout waits at most `checkoutTimeout` seconds
/// for a free one (`StoreError.poolTimeout`), first come first served. An idle connection the
/// server closed is replaced on its next checkout; if no connection can be opened, the checkout
/// fails at once with `StoreError.unavailable` instead of waiting.
///
/// Parameters are bound in binary form (text for `String`, whose type the server infers) and
/// results are always requested in binary form, decoded by `PGRow` by column type: no text
/// parsing, no hex escaping for bytea, exact floats and microsecond timestamps. A type without a
/// decoder (e.g. interval, inet) must be cast in SQL (`::text`).
public final class Database: Sendable {
    let settings: ConnectionSettings
    private let checkoutTimeout: Double
    let state: Mutex<PoolState<PooledConnection, PoolWaiter>>
    /// Opens, failed opens, lost connections and reconnects, for `/metrics`.
    public let connections = ConnectionCounters()
    /// Counts lost connections. An idle connection opened before the latest loss is not reused: its
    /// server may be gone too, and one that vanished without a reset would hold its next borrower
    /// for the whole dead-peer timeout, one idle connection after another.
    private let losses = Atomic<Int>(0)

    /// `url` is a `postgresql://` URI or key=value string (`DATABASE_URL`), given to libpq as it is.
    /// Only its syntax is checked here; no connection is opened until first use. Opening a
    /// connection gives up after `connectTimeout` seconds (default: the checkout timeout, at
    /// least 2) unless the URL sets `connect_timeout` itself.
    public init(
        url: String, poolSize: Int = 10, checkoutTimeout: Double = 5, connectTimeout: Double? = nil
    ) throws(StoreError) {
        guard poolSize >= 1 else { throw .invalidConfiguration("poolSize must be at least 1") }
        guard checkoutTimeout >= 0, checkoutTimeout.isFinite else {
            throw .invalidConfiguration("checkoutTimeout must be a non-negative number of seconds")
        }
        settings = try ConnectionSettings(url: url, connectTimeout: connectTimeout ?? checkoutTimeout)
        self.checkoutTimeout = checkoutTimeout
        state = Mutex(PoolState(capacity: poolSize))
    }

    /// Lends a connection to `body` and takes it back afterwards. The connection is reset with
    /// ROLLBACK if `body` left a transaction open.
    public func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let connection = try checkout()
        defer { checkin(connection) }
        return try body(connection)
    }

    /// Runs one statement on a pooled connection (autocommit).
    public func query(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws(StoreError) -> [PGRow] {
        let connection = try checkout()
        defer { checkin(connection) }
        return try connection.query(sql, parameters)
    }

    /// Runs one statement on a pooled connection (autocommit); returns the rows affected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws(StoreError) -> Int {
        let connection = try checkout()
        defer { checkin(connection) }
        return try connection.execute(sql, parameters)
    }

    /// True when a connection can be checked out and answers `SELECT 1`.
    public func ping() -> Bool {
        (try? query("SELECT 1")) != nil
    }

    /// Closes idle connections and refuses new checkouts; lent connections close when returned.
    public func close() {
        // The idle connections close when `closing` is released, outside the lock.
        let closing = state.withLock { $0.close() }
        for waiter in closing.waiters { waiter.deliver(.closed) }
    }

    /// The configured size and the connections currently lent out (or being opened).
    public var poolStats: (size: Int, inUse: Int) {
        state.withLock { ($0.capacity, $0.inUse) }
    }

    // MARK: Checkout and checkin

    func checkout() throws(StoreError) -> PGConnection {
        let waiter = PoolWaiter()
        switch state.withLock({ $0.checkout(waiter: waiter) }) {
        case .reuse(let pooled): return try revive(pooled.connection)
        case .open: return try open()
        case .closed: throw .unavailable("the database pool is closed")
        case .wait:
            switch try wait(waiter) {
            case .connection(let pooled): return try revive(pooled.connection)
            case .capacity: return try open()
            case .closed: throw .unavailable("the database pool is closed")
            }
        }
    }

    private func wait(_ waiter: PoolWaiter) throws(StoreError) -> PoolState<PooledConnection, PoolWaiter>.Handoff {
        if let handoff = waiter.take(timeout: checkoutTimeout) { return handoff }
        if state.withLock({ $0.cancel(waiter) }) { throw .poolTimeout }
        // Served just as the wait timed out: the handoff is being delivered.
        return waiter.take()
    }

    /// An idle connection may have been closed by the server since its last use, or opened before
    /// another connection was lost; replace it.
    private func revive(_ connection: PGConnection) throws(StoreError) -> PGConnection {
        guard connection.openedAfterLosses == losses.load(ordering: .relaxed) else { return try open() }
        if connection.raw.isAliveWhileIdle() { return connection }
        lost(connection)
        return try open()
    }

    private func lost(_ connection: PGConnection) {
        connections.recordLost()
        losses.add(1, ordering: .relaxed)
        settings.lost(connection.raw)
    }

    /// Opens a connection for a reserved slot, freeing the slot if that fails.
    private func open() throws(StoreError) -> PGConnection {
        do {
            let connection = PGConnection(raw: try settings.connect())
            connection.openedAfterLosses = losses.load(ordering: .relaxed)
            connections.recordOpened()
            return connection
        } catch {
            connections.recordFailedOpen()
            if let (waiter, handoff) = state.withLock({ $0.discard() }) { waiter.deliver(handoff) }
            throw error
        }
    }

    func checkin(_ connection: PGConnection) {
        connection.rollbackIfNeeded()
        if !connection.raw.isOK { lost(connection) }
        guard connection.raw.isOK, connection.raw.transactionStatus == .idle else {
            if let (waiter, handoff) = state.withLock({ $0.discard() }) { waiter.deliver(handoff) }
            return
        }
        let pooled = PooledConnection(connection: connection)
        switch state.withLock({ $0.checkin(pooled) }) {
        case .keptIdle, .close: break
        case .handedOff(let waiter, let handoff): waiter.deliver(handoff)
        }
    }
}

/// A connection parked in the pool. Sendable because the pool lends each connection to one
/// borrower at a time and never touches it while lent.
struct PooledConnection: @unchecked Sendable {
    let connection: PGConnection
}

/// A checkout waiting for a connection: a semaphore plus the slot the handoff is put in.
final class PoolWaiter: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let handoff = Mutex<PoolState<PooledConnection, PoolWaiter>.Handoff?>(nil)

    func deliver(_ value: PoolState<PooledConnection, PoolWaiter>.Handoff) {
        handoff.withLock { $0 = value }
        semaphore.signal()
    }

    /// Waits for the handoff, up to `timeout` seconds; nil if none came in time.
    func take(timeout: Double) -> PoolState<PooledConnection, PoolWaiter>.Handoff? {
        guard semaphore.wait(timeout: .now() + timeout) == .success else { return nil }
        return handoff.withLock { $0.take() }
    }

    /// Waits for a handoff already promised to this waiter.
    func take() -> PoolState<PooledConnection, PoolWaiter>.Handoff {
        semaphore.wait()
        return handoff.withLock { $0.take() }!
    }
}
