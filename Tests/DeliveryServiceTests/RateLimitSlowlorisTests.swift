import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A client that dribbles its header section is cut off after HEADER_READ_TIMEOUT while other
/// clients are served as usual.
final class RateLimitSlowlorisTests: XCTestCase {
    func test_slowHeaderClient_isCutOff_whileOthersAreServed() throws {
        let service = try ServiceHarness(environment: ["HEADER_READ_TIMEOUT": "1", "RATE_LIMIT_IP": "off"])
        defer { service.shutdown() }
        let slow = try RawConnection(port: UInt16(service.app.port))
        defer { slow.close() }
        XCTAssertTrue(slow.send("GET /xrpc/_health HTTP/1.1\r\nHost: mls.test\r\n"))
        // One header line every 200 ms for up to 30 s; the server must hang up long before.
        var cutOff = false
        for index in 0..<150 {
            Thread.sleep(forTimeInterval: 0.2)
            if index % 5 == 0 { XCTAssertEqual(try service.get(path: "/xrpc/_health").status, 200) }
            if !slow.send("X-Drip-\(index): a\r\n") || slow.isClosedByPeer {
                cutOff = true
                break
            }
        }
        XCTAssertTrue(cutOff, "the slow client was never disconnected")
        XCTAssertEqual(try service.get(path: "/xrpc/_health").status, 200)
    }
}

/// A blocking TCP connection to 127.0.0.1 for writing hand-made requests.
final class RawConnection {
    private let fd: Int32

    /// What `poll()` received so far.
    private(set) var received: [UInt8] = []

    /// - Parameter source: the local address to connect from (any of 127.0.0.0/8 on loopback), so
    ///   that one test can be several clients.
    init(port: UInt16, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw POSIXError(.EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// False once the peer has closed or reset the connection.
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// False once the peer has closed or reset the connection.
    func send(bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Takes what has arrived without waiting (into `received`); true once the server closed.
    func poll() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                received += buffer.prefix(count)
                continue
            }
            if count == 0 { return true }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }

    /// The status code of the response in `received`, if its status line arrived.
    var receivedStatus: Int? {
        let text = String(decoding: received, as: UTF8.self)
        guard let line = text.split(separator: "\r\n").first, line.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(line.split(separator: " ")[1])
    }

    /// True when a read would report end of stream or an error (the server hung up).
    var isClosedByPeer: Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        // A response (e.g. 408) counts too: the server gave up on this request.
        return true
    }

    /// Everything the server sends until it closes (or nothing arrives for `timeout` seconds).
    func readAll(timeout: Int = 30) -> String {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }
}
