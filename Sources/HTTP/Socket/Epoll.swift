import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// A thin wrapper over one epoll instance. Each I/O thread owns one.
package struct Epoll {
    package static let readable = LinuxCalls.EPOLLIN
    package static let writable = LinuxCalls.EPOLLOUT
    package static let peerHangUp = LinuxCalls.EPOLLRDHUP
    package static let hangUp = LinuxCalls.EPOLLHUP
    package static let error = LinuxCalls.EPOLLERR
    package static let edgeTriggered = LinuxCalls.EPOLLET
    static let exclusive = LinuxCalls.EPOLLEXCLUSIVE

    let descriptor: Int32

    package static func make() throws(SocketError) -> Epoll {
        let fd = LinuxCalls.create1(LinuxCalls.EPOLL_CLOEXEC)
        guard fd >= 0 else { throw .makeFailed("epoll_create1") }
        return Epoll(descriptor: fd)
    }

    package func add(_ fd: Int32, events: UInt32, data: UInt64) throws(SocketError) {
        let result = LinuxCalls.control(descriptor, LinuxCalls.EPOLL_CTL_ADD, fd, events: events, data: data)
        guard result == 0 else { throw .makeFailed("epoll_ctl EPOLL_CTL_ADD") }
    }

    package func remove(_ fd: Int32) {
        _ = LinuxCalls.control(descriptor, LinuxCalls.EPOLL_CTL_DEL, fd, events: 0, data: 0)
    }

    /// Waits up to `timeoutMS` (-1 = forever) and returns how many events were stored in `events`.
    package func wait(into events: EpollEvents, timeoutMS: Int32) -> Int {
        let n = LinuxCalls.wait(descriptor, events.storage.baseAddress, Int32(events.capacity), timeoutMS)
        return n < 0 ? 0 : Int(n)
    }

    package func close() {
        _ = Glibc.close(descriptor)
    }
}

/// The event array `epoll_wait` fills; owned by one I/O thread.
package final class EpollEvents {
    let capacity: Int
    fileprivate let storage: UnsafeMutableBufferPointer<epoll_event>

    package init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: epoll_event())
    }

    deinit {
        storage.deallocate()
    }

    package subscript(index: Int) -> (events: UInt32, data: UInt64) {
        (storage[index].events, storage[index].data.u64)
    }
}

/// A counter descriptor other threads write to wake an I/O thread out of `epoll_wait`.
package struct EventFD: Sendable {
    package let descriptor: Int32

    package static func make() throws(SocketError) -> EventFD {
        let fd = LinuxCalls.eventfd(0, LinuxCalls.EFD_NONBLOCK | LinuxCalls.EFD_CLOEXEC)
        guard fd >= 0 else { throw .makeFailed("eventfd") }
        return EventFD(descriptor: fd)
    }

    package func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    package func drain() {
        var value: UInt64 = 0
        _ = Glibc.read(descriptor, &value, MemoryLayout<UInt64>.size)
    }

    package func close() {
        _ = Glibc.close(descriptor)
    }
}

/// The per-thread buffer every socket read lands in before parsing.
final class ReceiveBuffer {
    let capacity: Int
    let storage: UnsafeMutableRawBufferPointer

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

    /// Decrypted input: ciphertext passes through `scratch` on its way into the TLS session.
    func read(from socket: Socket, through tls: TLSSession, scratch: ReceiveBuffer) -> IOResult {
        tls.read(from: socket, into: storage, scratch: scratch.storage)
    }

    func withBytes<R>(count: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}
