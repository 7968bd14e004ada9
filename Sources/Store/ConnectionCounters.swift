import Synchronization

/// What happened to the connections of a pool or a listener, for `/metrics`: each one opened, each
/// attempt that failed, each one lost (broken in use, or found closed by the server while idle),
/// and each reconnect (an open that replaced a lost connection).
public final class ConnectionCounters: Sendable {
    private let openedCount = Atomic<UInt64>(0)
    private let failedCount = Atomic<UInt64>(0)
    private let lostCount = Atomic<UInt64>(0)
    private let reconnectCount = Atomic<UInt64>(0)
    /// Lost connections not yet replaced.
    private let unreplaced = Atomic<Int>(0)

    public init() {}

    public var opened: UInt64 { openedCount.load(ordering: .relaxed) }
    public var failedOpens: UInt64 { failedCount.load(ordering: .relaxed) }
    public var lost: UInt64 { lostCount.load(ordering: .relaxed) }
    public var reconnects: UInt64 { reconnectCount.load(ordering: .relaxed) }

    func recordOpened() {
        openedCount.add(1, ordering: .relaxed)
        var expected = unreplaced.load(ordering: .relaxed)
        while expected > 0 {
            let (exchanged, original) = unreplaced.compareExchange(expected: expected, desired: expected - 1, ordering: .relaxed)
            if exchanged {
                reconnectCount.add(1, ordering: .relaxed)
                return
            }
            expected = original
        }
    }

    func recordFailedOpen() { failedCount.add(1, ordering: .relaxed) }

    func recordLost() {
        lostCount.add(1, ordering: .relaxed)
        unreplaced.add(1, ordering: .relaxed)
    }
}
