import Basics
import Foundation
import HTTP
import Primitives
import Store
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the blob tests: uploads and downloads with a patient client, the rows and files the
/// service keeps, and a raw socket for requests that end badly.
struct BlobFixture {
    static let upload = "blue.catbird.mls.uploadBlob"
    static let get = "blue.catbird.mls.getBlob"

    let baseURL: String
    let database: Database
    let blobDirectory: String
    let client = HTTPClient(timeout: 300, maxBodySize: 64 << 20, allowPrivateAddresses: true)

    init(_ harness: ServiceHarness) {
        baseURL = harness.baseURL
        database = harness.app.database
        blobDirectory = harness.blobDirectory
    }

    func upload(_ bytes: [UInt8], convo: String, as user: TestIdentity, contentType: String? = "application/octet-stream",
                baseURL: String? = nil) throws -> ServiceHarness.Reply {
        var headers = [("Authorization", "Bearer " + user.token(audience: ServiceHarness.serviceDID, nsid: Self.upload))]
        if let contentType { headers.append(("Content-Type", contentType)) }
        let response = try client.send(method: "POST", (baseURL ?? self.baseURL) + "/xrpc/\(Self.upload)?convoId=\(convo)",
                                       headers: headers, body: bytes)
        return ServiceHarness.Reply(status: response.status, headers: response.headers, body: response.body)
    }

    func fetch(_ blobID: String, as user: TestIdentity, method: String = "GET", headers extra: [(String, String)] = [],
               baseURL: String? = nil) throws -> ServiceHarness.Reply {
        let headers = [("Authorization", "Bearer " + user.token(audience: ServiceHarness.serviceDID, nsid: Self.get))] + extra
        let response = try client.send(method: method, (baseURL ?? self.baseURL) + "/xrpc/\(Self.get)?blobId=\(blobID)",
                                       headers: headers)
        return ServiceHarness.Reply(status: response.status, headers: response.headers, body: response.body)
    }

    var rowCount: Int {
        get throws { try database.query("SELECT count(*) FROM blobs")[0].int(0) }
    }

    /// Every regular file under BLOB_DIR (content and temporary), relative paths, sorted.
    var files: [String] {
        let enumerator = FileManager.default.enumerator(atPath: blobDirectory)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: blobDirectory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// Polls (bounded) until `condition` holds; the result is asserted by the caller.
    @discardableResult
    func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<500 {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        // Random enough to defeat dedup between tests, cheap enough for 50 MiB.
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = generator.next() as UInt64
            for _ in 0..<8 where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
}

/// A blocking TCP client speaking raw bytes, for uploads that stop half-way or overrun the limit.
final class BlobRawClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, receiveTimeout: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "connect failed"])
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// False once the peer stopped accepting bytes (closed or reset).
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

    /// Whether response bytes are waiting (without blocking).
    var hasInput: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Closes the connection at once, mid-request.
    func abort() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// The status line's code and the body of the response (read until the connection closes or
    /// Content-Length bytes arrived); nil if nothing came back.
    func readResponse() -> (status: Int, body: String)? {
        while true {
            if let end = headerEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
                let length = lines.compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                while buffer.count < end + 4 + length, fill() {}
                let body = buffer[(end + 4)...].prefix(length)
                return (status, String(decoding: body, as: UTF8.self))
            }
            guard fill() else { return nil }
        }
    }

    /// Everything until the peer closes, split at the end of the head (for HEAD responses).
    func readAll() -> (status: Int, head: String, body: String)? {
        while fill() {}
        guard let end = headerEnd() else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, String(decoding: buffer[(end + 4)...], as: UTF8.self))
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10
            && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}
