import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// epoll, eventfd and accept4 from <sys/epoll.h>, <sys/eventfd.h> and <sys/socket.h> through the
/// CSystem module map (Swift's Glibc module does not include them), with the flags as UInt32/Int32.
enum LinuxCalls {
    static let EPOLLIN = UInt32(CSystem.EPOLLIN.rawValue)
    static let EPOLLOUT = UInt32(CSystem.EPOLLOUT.rawValue)
    static let EPOLLERR = UInt32(CSystem.EPOLLERR.rawValue)
    static let EPOLLHUP = UInt32(CSystem.EPOLLHUP.rawValue)
    static let EPOLLRDHUP = UInt32(CSystem.EPOLLRDHUP.rawValue)
    static let EPOLLET = UInt32(CSystem.EPOLLET.rawValue)
    static let EPOLLEXCLUSIVE = UInt32(CSystem.EPOLLEXCLUSIVE.rawValue)
    static let EPOLL_CTL_ADD = CSystem.EPOLL_CTL_ADD
    static let EPOLL_CTL_DEL = CSystem.EPOLL_CTL_DEL
    static let EPOLL_CLOEXEC = Int32(CSystem.EPOLL_CLOEXEC)
    static let EFD_CLOEXEC = Int32(CSystem.EFD_CLOEXEC)
    static let EFD_NONBLOCK = Int32(CSystem.EFD_NONBLOCK)

    static func create1(_ flags: Int32) -> Int32 { epoll_create1(flags) }

    static func control(_ epoll: Int32, _ operation: Int32, _ fd: Int32, events: UInt32, data: UInt64) -> Int32 {
        var event = epoll_event()
        event.events = events
        event.data.u64 = data
        return epoll_ctl(epoll, operation, fd, &event)
    }

    static func wait(_ epoll: Int32, _ events: UnsafeMutablePointer<epoll_event>?, _ capacity: Int32, _ timeoutMS: Int32) -> Int32 {
        epoll_wait(epoll, events, capacity, timeoutMS)
    }

    static func eventfd(_ initial: UInt32, _ flags: Int32) -> Int32 { CSystem.eventfd(initial, flags) }

    static func accept4(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32) -> Int32 {
        csystem_accept4(fd, UnsafeMutableRawPointer(address), length, flags)
    }
}
