#if canImport(Glibc)
import Glibc
#endif

/// epoll, eventfd and accept4 entry points. Swift's Glibc module map does not include <sys/epoll.h>
/// or <sys/eventfd.h> (and hides the GNU accept4), and this module has no C target of its own, so the
/// functions are looked up once in the C library and called through `@convention(c)` pointers with
/// the kernel ABI values.
enum LinuxCalls {
    typealias Create1 = @convention(c) (Int32) -> Int32
    typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    // <sys/epoll.h>, <sys/eventfd.h> (Linux UAPI values, identical on every architecture).
    static let EPOLLIN: UInt32 = 0x001
    static let EPOLLOUT: UInt32 = 0x004
    static let EPOLLERR: UInt32 = 0x008
    static let EPOLLHUP: UInt32 = 0x010
    static let EPOLLRDHUP: UInt32 = 0x2000
    static let EPOLLET: UInt32 = 1 << 31
    static let EPOLLEXCLUSIVE: UInt32 = 1 << 28
    static let EPOLL_CTL_ADD: Int32 = 1
    static let EPOLL_CTL_DEL: Int32 = 2
    static let EPOLL_CLOEXEC: Int32 = 0o2_000_000
    static let EFD_CLOEXEC: Int32 = 0o2_000_000
    static let EFD_NONBLOCK: Int32 = 0o4_000

    /// `struct epoll_event` is packed on x86-64 (12 bytes: u32 events, u64 data at offset 4);
    /// elsewhere the u64 is naturally aligned (16 bytes, data at offset 8).
    #if arch(x86_64)
    static let eventSize = 12
    static let dataOffset = 4
    #else
    static let eventSize = 16
    static let dataOffset = 8
    #endif

    static let create1: Create1 = symbol("epoll_create1")
    static let control: Control = symbol("epoll_ctl")
    static let wait: Wait = symbol("epoll_wait")
    static let eventfd: EventFD = symbol("eventfd")
    static let accept4: Accept4 = symbol("accept4")

    private static func symbol<F>(_ name: String) -> F {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("the C library lacks \(name)")
        }
        return unsafeBitCast(address, to: F.self)
    }
}
