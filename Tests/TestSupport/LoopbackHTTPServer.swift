import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 server on 127.0.0.1 (port chosen by the kernel) that plays the PLC
/// directory or a did:web host: it serves canned replies from a mutable table and counts requests.
public final class LoopbackHTTPServer: Sendable {
    public enum Reply: Sendable {
        /// Exactly these bytes, then close.
        case raw([UInt8])
        /// Read the request, then send nothing until the client gives up.
        case hang
        /// These bytes once `gate` opens (a directory that answers only when the test says so).
        case gated(Gate, [UInt8])
        /// These bytes after `seconds` (a directory that answers late, or after the client gave up).
        case delayed(Double, [UInt8])
        /// What `answer` makes of the request target (path and query): a server with logic of its
        /// own (`LoopbackPDS`).
        case respond(@Sendable (_ target: String) -> [UInt8])
    }

    /// Holds `gated` replies until opened.
    public final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let waiting = Mutex(0)

        public init() {}

        /// Lets every held and later reply through.
        public func open() {
            opened.signal()
        }

        /// Replies held now.
        public var waitingCount: Int { waiting.withLock { $0 } }

        func wait() {
            waiting.withLock { $0 += 1 }
            opened.wait()
            // Pass the signal on: one open releases everybody.
            opened.signal()
            waiting.withLock { $0 -= 1 }
        }
    }

    public let port: UInt16
    private let listener: Int32
    private let replies = Mutex<[String: Reply]>([:])
    private let counts = Mutex<[String: Int]>([:])
    private let requestHeads = Mutex<[String]>([])
    private let fallback = Mutex<Reply?>(nil)

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        (listener, port) = try Self.listenOnLoopback()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A listening TCP socket on 127.0.0.1 with a kernel-chosen port.
    public static func listenOnLoopback() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Stops accepting; shutdown(2) wakes the blocked accept(2).
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    public func set(_ path: String, _ reply: Reply) {
        replies.withLock { $0[path] = reply }
    }

    public func remove(_ path: String) {
        replies.withLock { _ = $0.removeValue(forKey: path) }
    }

    /// A JSON document with Content-Length framing.
    public func setJSON(_ path: String, _ json: String, status: Int = 200) {
        set(path, .raw(Self.jsonResponse(json, status: status)))
    }

    /// The bytes `setJSON` serves.
    public static func jsonResponse(_ json: String, status: Int = 200) -> [UInt8] {
        let body = Array(json.utf8)
        let head = "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// What `path` gets when no reply is set for it (404 unless replaced): for example every DID
    /// the test did not publish.
    public func setFallback(_ reply: Reply?) {
        fallback.withLock { $0 = reply }
    }

    public func requestCount(_ path: String) -> Int {
        counts.withLock { $0[path] ?? 0 }
    }

    public var totalRequests: Int {
        counts.withLock { $0.values.reduce(0, +) }
    }

    /// The raw request heads received, in order.
    public var receivedHeads: [String] {
        requestHeads.withLock { $0 }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: [13, 10, 13, 10]) && request.count < 65536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            request += buffer.prefix(count)
            // A TLS ClientHello (record type 22) on this plain port: answer in plain HTTP, as
            // real servers do, so the client's handshake fails at once.
            if request.first == 0x16 {
                counts.withLock { $0["<tls>", default: 0] += 1 }
                let reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                _ = reply.withCString { Glibc.send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                return
            }
        }
        let head = String(decoding: request, as: UTF8.self)
        requestHeads.withLock { $0.append(head) }
        let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count == 3 ? String(parts[1]) : ""
        counts.withLock { $0[path, default: 0] += 1 }
        switch replies.withLock({ $0[path] }) ?? fallback.withLock({ $0 }) {
        case .raw(let bytes)?:
            Self.write(bytes, on: connection)
        case .hang?:
            // Blocks until the client closes or the receive timeout passes.
            _ = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        case .gated(let gate, let bytes)?:
            gate.wait()
            Self.write(bytes, on: connection)
        case .delayed(let seconds, let bytes)?:
            Thread.sleep(forTimeInterval: seconds)
            Self.write(bytes, on: connection)
        case .respond(let answer)?:
            Self.write(answer(path), on: connection)
        case nil:
            let notFound = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = notFound.withCString { Glibc.send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
    }
}

extension LoopbackHTTPServer {
    private static func write(_ bytes: [UInt8], on connection: Int32) {
        bytes.withUnsafeBytes { _ = Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
