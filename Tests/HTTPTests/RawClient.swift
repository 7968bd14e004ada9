#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// A blocking TCP client speaking raw bytes, so tests control framing exactly. Reads time out after
/// `receiveTimeout` seconds so a broken server fails a test instead of hanging it.
/// Unchecked Sendable: one thread may send while another reads; only the reader touches `buffer`.
final class RawClient: @unchecked Sendable {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    enum ClientError: Error {
        case connectFailed(Int32)
        case timedOut
        case closedEarly
        case malformed(String)
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// `sourceAddress` binds the client to another loopback address (127.0.0.0/8) first.
    init(port: Int, receiveTimeout: Double = 5, sourceAddress: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let sourceAddress {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(sourceAddress)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw ClientError.connectFailed(code)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError.connectFailed(code)
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(fd)
    }

    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads more bytes into the buffer; false on EOF or reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError.timedOut }
        return false
    }

    /// Reads one response (skipping nothing: a 100 Continue is returned as its own response).
    func readResponse(toHEAD: Bool = false) throws -> Response {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find([13, 10, 13, 10])
            if headEnd == nil, try !fill() { throw ClientError.closedEarly }
        }
        let headText = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw ClientError.malformed(headText)
        }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        var response = Response(status: status, headers: headers, body: [])
        let length = toHEAD ? 0 : Int(response.header("content-length") ?? "0") ?? 0
        while buffer.count < length {
            if try !fill() { throw ClientError.closedEarly }
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }

    /// The bytes up to and including the next `delimiter`; throws `closedEarly` on EOF first.
    func readLine(_ delimiter: UInt8 = 10) throws -> String {
        while true {
            if let end = buffer.firstIndex(of: delimiter) {
                let line = String(decoding: buffer[0...end], as: UTF8.self)
                buffer.removeFirst(end + 1)
                return line
            }
            if try !fill() { throw ClientError.closedEarly }
        }
    }

    /// Exactly `count` bytes; throws `closedEarly` on EOF first.
    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            if try !fill() { throw ClientError.closedEarly }
        }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Shrinks the kernel receive buffer so a client that stops reading pushes back quickly.
    func setReceiveBufferSize(_ bytes: Int32) {
        var value = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// True when the server closed the connection (EOF or reset) with nothing more to read.
    func isClosedByPeer() throws -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        if n > 0 {
            buffer.append(byte)
            return false
        }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError.timedOut }
        return true
    }

    /// Everything until the server closes (bounded by the receive timeout).
    func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// True when a read would not block (data or EOF is waiting).
    func isReadable() -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    /// Reads until the server closes, or until it has sent something and then paused (a kept-alive
    /// connection); throws if it sends nothing and never closes.
    func readUntilClosedOrIdle() throws -> [UInt8] {
        var received: [UInt8] = []
        while true {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received.append(contentsOf: chunk[0..<n])
                continue
            }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK, received.isEmpty { throw ClientError.timedOut }
            return received
        }
    }

    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start..<(start + pattern.count)].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}
