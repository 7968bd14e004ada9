import Foundation
import Synchronization

/// A clock tests move by hand; no test sleeps to let time pass.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public var closure: @Sendable () -> Date { { [self] in now } }
}
