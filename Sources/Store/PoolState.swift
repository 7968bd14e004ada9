/// The bookkeeping of a connection pool, free of locks and I/O so it can be tested alone.
/// `Database` keeps it in a `Mutex` and performs the returned actions outside the lock.
///
/// `open` counts connections that exist or are being opened; `inUse` those lent out or being
/// opened for a borrower. Waiters are served first come, first served.
struct PoolState<Connection, Waiter: AnyObject> {
    let capacity: Int
    private(set) var idle: [Connection] = []
    private(set) var open = 0
    private(set) var inUse = 0
    private(set) var waiters: [Waiter] = []
    private(set) var isClosed = false

    init(capacity: Int) { self.capacity = capacity }

    enum CheckoutAction {
        /// Use this idle connection (check it is still alive first).
        case reuse(Connection)
        /// A slot is reserved: open a new connection, or call `discard` if that fails.
        case open
        /// The waiter was queued; a `Handoff` will be delivered to it.
        case wait
        case closed
    }

    /// What a waiter receives.
    enum Handoff {
        case connection(Connection)
        /// A slot was freed and reserved for the waiter, which must open a connection.
        case capacity
        case closed
    }

    mutating func checkout(waiter: Waiter) -> CheckoutAction {
        if isClosed { return .closed }
        if let connection = idle.popLast() {
            inUse += 1
            return .reuse(connection)
        }
        if open < capacity {
            open += 1
            inUse += 1
            return .open
        }
        waiters.append(waiter)
        return .wait
    }

    enum CheckinAction {
        case keptIdle
        case handedOff(Waiter, Handoff)
        /// The pool is closed: close the connection.
        case close(Connection)
    }

    /// A healthy connection comes back.
    mutating func checkin(_ connection: Connection) -> CheckinAction {
        if isClosed {
            open -= 1
            inUse -= 1
            return .close(connection)
        }
        if !waiters.isEmpty { return .handedOff(waiters.removeFirst(), .connection(connection)) }
        inUse -= 1
        idle.append(connection)
        return .keptIdle
    }

    /// A lent connection was closed, or opening one failed: its slot is freed, and handed to the
    /// first waiter if there is one.
    mutating func discard() -> (Waiter, Handoff)? {
        open -= 1
        inUse -= 1
        guard !isClosed, !waiters.isEmpty else { return nil }
        open += 1
        inUse += 1
        return (waiters.removeFirst(), .capacity)
    }

    /// A waiter gave up. False when it was already served, so a handoff is on its way to it.
    mutating func cancel(_ waiter: Waiter) -> Bool {
        guard let index = waiters.firstIndex(where: { $0 === waiter }) else { return false }
        waiters.remove(at: index)
        return true
    }

    /// Closes the pool: returns the idle connections to close and the waiters to wake.
    mutating func close() -> (idle: [Connection], waiters: [Waiter]) {
        isClosed = true
        let closing = (idle, waiters)
        open -= idle.count
        idle = []
        waiters = []
        return closing
    }
}

extension PoolState: Sendable where Connection: Sendable, Waiter: Sendable {}
extension PoolState.CheckoutAction: Sendable where Connection: Sendable, Waiter: Sendable {}
extension PoolState.Handoff: Sendable where Connection: Sendable, Waiter: Sendable {}
extension PoolState.CheckinAction: Sendable where Connection: Sendable, Waiter: Sendable {}
