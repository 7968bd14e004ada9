#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds for deadlines; never goes backwards with wall-clock changes.
enum MonotonicClock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds <= 0 ? 0 : UInt64(seconds * 1_000_000_000)
    }
}
