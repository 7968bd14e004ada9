import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The events bench's thin wrapper over one epoll instance (level-triggered, input only), so a
/// reader thread does not pay poll(2)'s per-call scan of every socket at tens of thousands of
/// frames a second. `CSystem` comes with the HTTP module: Swift's Glibc does not import epoll.
final class ReadinessSet {
    private let descriptor: Int32
    private var events: [epoll_event]

    init(capacity: Int) throws(LoopbackSocket.Failure) {
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw .system("epoll_create1", errno) }
        events = [epoll_event](repeating: epoll_event(), count: max(1, capacity))
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Watches `socket` for input; `token` comes back from `wait` when it has some.
    func add(_ socket: LoopbackSocket, token: Int) throws(LoopbackSocket.Failure) {
        var event = epoll_event()
        event.events = UInt32(EPOLLIN.rawValue)
        event.data.u64 = UInt64(token)
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, socket.descriptor, &event) == 0 else { throw .system("epoll_ctl", errno) }
    }

    /// Stops watching `socket` (before it is closed, or once it is done).
    func remove(_ socket: LoopbackSocket) {
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, socket.descriptor, &event)
    }

    /// Tokens of the sockets with input pending, waiting up to `timeoutMilliseconds`.
    func wait(timeoutMilliseconds: Int32) -> [Int] {
        let count = events.withUnsafeMutableBufferPointer { epoll_wait(descriptor, $0.baseAddress, Int32($0.count), timeoutMilliseconds) }
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { Int(events[$0].data.u64) }
    }
}
