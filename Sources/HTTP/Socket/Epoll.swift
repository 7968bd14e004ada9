#if canImport(Glibc)
import Glibc
#endif

/// A thin wrapper over one epoll instance. Each I/O thread owns one.
struct Epoll {
    static let readable = LinuxCalls.EPOLLIN
    static let writable = LinuxCalls.EPOLLOUT
    static let peerHangUp = LinuxCalls.EPOLLRDHUP
    static let hangUp = LinuxCalls.EPOLLHUP
    static let error = LinuxCalls.EPOLLERR
    static let edgeTriggered = LinuxCalls.EPOLLET
    static let exclusive = LinuxCalls.EPOLLEXCLUSIVE

    let descriptor: Int32

    static func make() throws(SocketError) -> Epoll {
        let fd = LinuxCalls.create1(LinuxCalls.EPOLL_CLOEXEC)
        guard fd >= 0 else { throw .makeFailed("epoll_create1") }
        return Epoll(descriptor: fd)
    }

    func add(_ fd: Int32, events: UInt32, data: UInt64) throws(SocketError) {
        let result = withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { event in
            event.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            event.storeBytes(of: data, toByteOffset: LinuxCalls.dataOffset, as: UInt64.self)
            return LinuxCalls.control(descriptor, LinuxCalls.EPOLL_CTL_ADD, fd, event.baseAddress)
        }
        guard result == 0 else { throw .makeFailed("epoll_ctl EPOLL_CTL_ADD") }
    }

    func remove(_ fd: Int32) {
        _ = withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { event in
            LinuxCalls.control(descriptor, LinuxCalls.EPOLL_CTL_DEL, fd, event.baseAddress)
        }
    }

    /// Waits up to `timeoutMS` (-1 = forever) and returns how many events were stored in `events`.
    func wait(into events: EpollEvents, timeoutMS: Int32) -> Int {
        let n = LinuxCalls.wait(descriptor, events.storage.baseAddress, Int32(events.capacity), timeoutMS)
        return n < 0 ? 0 : Int(n)
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}

/// The event array `epoll_wait` fills; owned by one I/O thread.
final class EpollEvents {
    let capacity: Int
    fileprivate let storage: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * LinuxCalls.eventSize, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        storage.deallocate()
    }

    subscript(index: Int) -> (events: UInt32, data: UInt64) {
        let offset = index * LinuxCalls.eventSize
        return (
            storage.loadUnaligned(fromByteOffset: offset, as: UInt32.self),
            storage.loadUnaligned(fromByteOffset: offset + LinuxCalls.dataOffset, as: UInt64.self)
        )
    }
}

/// A counter descriptor other threads write to wake an I/O thread out of `epoll_wait`.
struct EventFD: Sendable {
    let descriptor: Int32

    static func make() throws(SocketError) -> EventFD {
        let fd = LinuxCalls.eventfd(0, LinuxCalls.EFD_NONBLOCK | LinuxCalls.EFD_CLOEXEC)
        guard fd >= 0 else { throw .makeFailed("eventfd") }
        return EventFD(descriptor: fd)
    }

    func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    func drain() {
        var value: UInt64 = 0
        _ = Glibc.read(descriptor, &value, MemoryLayout<UInt64>.size)
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}

/// The per-thread buffer every socket read lands in before parsing.
final class ReceiveBuffer {
    let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    func read(from socket: Socket) -> IOResult {
        socket.read(into: storage)
    }

    func withBytes<R>(count: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}
