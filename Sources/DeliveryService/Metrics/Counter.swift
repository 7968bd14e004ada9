import Synchronization

/// A monotonically increasing count, one relaxed atomic add per event.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    public init() {}

    public func increment(by amount: UInt64 = 1) { storage.add(amount, ordering: .relaxed) }

    public var value: UInt64 { storage.load(ordering: .relaxed) }
}
