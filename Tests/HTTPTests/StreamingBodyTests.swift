import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// Streamed uploads (request bodies consumed piece by piece on a worker) and file downloads.
final class StreamingBodyTests: XCTestCase {
    /// 262 periods of a 251-byte pattern: uploads are whole blocks plus a tail, checked with memcmp.
    static let block = Data((0..<(251 * 262)).map { UInt8($0 % 251) })

    struct Upload: Sendable {
        var parts = 0
        var largestPart = 0
        var bytes = 0
        var peakBuffered = 0
        var error: HTTPBodyStreamError?
        var fileRemoved = false
    }

    /// /upload/NAME streams into DIR/NAME (64 MiB limit), /small/NAME allows 1000 bytes, /early
    /// answers 401 without reading, /download serves DIR/download with optional offset & length
    /// (on the I/O thread under /inline/, else on the worker pool).
    final class Responder: HTTPResponder {
        let directory: URL
        let uploads = Mutex<[String: Upload]>([:])
        let consumerCalls = Atomic<Int>(0)

        init(directory: URL) {
            self.directory = directory
        }

        func mayBlock(_ head: HTTPRequestHead) -> Bool {
            !head.path.hasPrefix("/inline/")
        }

        func bodyHandling(for head: HTTPRequestHead) -> HTTPBodyHandling {
            if head.path.hasPrefix("/upload/") || head.path.hasPrefix("/slow/") || head.path == "/early" { return .stream(maxSize: 64 << 20) }
            if head.path.hasPrefix("/small/") { return .stream(maxSize: 1000) }
            return .buffered
        }

        func respond(to request: HTTPRequest, body: HTTPBodyStream) -> HTTPResponse {
            consumerCalls.add(1, ordering: .relaxed)
            if request.path == "/early" { return HTTPResponse(status: 401) }
            let name = String(request.path.split(separator: "/").last!)
            let url = directory.appendingPathComponent(name)
            FileManager.default.createFile(atPath: url.path, contents: nil)
            let file = try! FileHandle(forWritingTo: url)
            var upload = Upload()
            defer { uploads.withLock { $0[name] = upload } }
            do {
                while let part = try body.read() {
                    if request.path.hasPrefix("/slow/") { usleep(2_000) }
                    upload.parts += 1
                    upload.largestPart = max(upload.largestPart, part.count)
                    upload.bytes += part.count
                    file.write(Data(part))
                }
                try? file.close()
                upload.peakBuffered = body.peakBuffered
                return HTTPResponse(status: 200, body: Array("stored \(upload.bytes)".utf8))
            } catch {
                // What an attachment store does with a partial upload: delete it.
                try? file.close()
                try? FileManager.default.removeItem(at: url)
                upload.error = error
                upload.fileRemoved = !FileManager.default.fileExists(atPath: url.path)
                return .error(status: 400, error: "Incomplete", message: "\(error)")
            }
        }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            let path = directory.appendingPathComponent("download").path
            let fields = Dictionary(uniqueKeysWithValues: request.query.split(separator: "&").map {
                let pair = $0.split(separator: "=")
                return (String(pair[0]), Int(pair[1])!)
            })
            guard let file = HTTPFileBody.open(path: path, offset: fields["offset"] ?? 0, length: fields["length"]) else {
                return HTTPResponse(status: 404)
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], file: file)
        }

        func upload(_ name: String) -> Upload? {
            uploads.withLock { $0[name] }
        }
    }

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func startServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (HTTPServer, Responder) {
        let responder = Responder(directory: directory)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 4)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        addTeardownBlock { server.shutdown() }
        return (server, responder)
    }

    /// Sends `count` bytes of the pattern on a background thread (the server reads while we write).
    private func sendPattern(_ client: RawClient, count: Int) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let block = Array(Self.block)
        Thread.detachNewThread {
            var sent = 0
            while sent < count {
                let n = min(block.count, count - sent)
                guard client.send(Array(block[0..<n])) else { break }
                sent += n
            }
            done.signal()
        }
        return done
    }

    private func assertFileHoldsPattern(_ url: URL, count: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let expected = Self.block.prefix(min(Self.block.count, count - offset))
            let actual = handle.readData(ofLength: expected.count)
            guard actual == expected else { return XCTFail("mismatch at \(offset)", file: file, line: line) }
            offset += expected.count
        }
        XCTAssertTrue(handle.readData(ofLength: 1).isEmpty, "file longer than the upload", file: file, line: line)
    }

    // MARK: Uploads

    func test50MiBUpload_IsStreamedToAFile_InBoundedPieces() throws {
        let (server, responder) = try startServer()
        let count = 50 << 20
        let client = try RawClient(port: server.port, receiveTimeout: 30)
        client.send("POST /upload/big HTTP/1.1\r\nHost: t\r\nContent-Length: \(count)\r\n\r\n")
        let sent = sendPattern(client, count: count)
        let response = try client.readResponse()
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(response.bodyText, "stored \(count)")
        let upload = try XCTUnwrap(responder.upload("big"))
        XCTAssertEqual(upload.bytes, count)
        XCTAssertGreaterThanOrEqual(upload.parts, count / (64 * 1024))
        XCTAssertLessThanOrEqual(upload.largestPart, 64 * 1024)
        // Never more than the high-water mark plus one read waited in memory.
        XCTAssertLessThanOrEqual(upload.peakBuffered, 256 * 1024 + 64 * 1024)
        try assertFileHoldsPattern(directory.appendingPathComponent("big"), count: count)

        // The connection stays usable for the next request.
        client.send("GET /download HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 404)
    }

    func testSlowConsumer_HoldsTheUploaderBack() throws {
        let (server, responder) = try startServer()
        let count = 8 << 20
        let client = try RawClient(port: server.port, receiveTimeout: 30)
        client.send("POST /slow/held HTTP/1.1\r\nHost: t\r\nContent-Length: \(count)\r\n\r\n")
        let sent = sendPattern(client, count: count)
        XCTAssertEqual(try client.readResponse().bodyText, "stored \(count)")
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        let upload = try XCTUnwrap(responder.upload("held"))
        // The reader fell behind (the mark was reached) yet far less than the upload ever waited.
        XCTAssertGreaterThanOrEqual(upload.peakBuffered, 256 * 1024)
        XCTAssertLessThanOrEqual(upload.peakBuffered, 256 * 1024 + 64 * 1024)
        try assertFileHoldsPattern(directory.appendingPathComponent("held"), count: count)
    }

    func testChunkedUpload_IsStreamed() throws {
        let (server, responder) = try startServer()
        let client = try RawClient(port: server.port)
        var request = "POST /upload/chunked HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        let sizes = [1, 100, 70_000, 3]
        for size in sizes { request += String(size, radix: 16) + "\r\n" + String(repeating: "x", count: size) + "\r\n" }
        request += "0\r\n\r\n"
        client.send(request)
        XCTAssertEqual(try client.readResponse().bodyText, "stored \(sizes.reduce(0, +))")
        let upload = try XCTUnwrap(responder.upload("chunked"))
        XCTAssertEqual(upload.bytes, sizes.reduce(0, +))
        XCTAssertNil(upload.error)
    }

    func testDeclaredOversizeUpload_Is413_WithoutCallingTheConsumer() throws {
        let (server, responder) = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /small/declared HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 413)
        XCTAssertTrue(try client.isClosedByPeer())
        XCTAssertEqual(responder.consumerCalls.load(ordering: .relaxed), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("declared").path))
    }

    func testChunkedOversizeUpload_Is413_AndThePartialFileIsGone() throws {
        let (server, responder) = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /small/chunky HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        client.send("1f4\r\n" + String(repeating: "a", count: 500) + "\r\n")
        client.send("1f4\r\n" + String(repeating: "b", count: 500) + "\r\n")
        client.send("2\r\nzz\r\n0\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 413)
        XCTAssertTrue(try client.isClosedByPeer())
        XCTAssertTrue(eventually { responder.upload("chunky") != nil })
        let upload = try XCTUnwrap(responder.upload("chunky"))
        XCTAssertEqual(upload.error, .payloadTooLarge)
        XCTAssertTrue(upload.fileRemoved)
        XCTAssertLessThanOrEqual(upload.bytes, 1000)
    }

    func testClientDisconnectMidUpload_ReachesTheConsumerAsAnError() throws {
        let (server, responder) = try startServer()
        do {
            let client = try RawClient(port: server.port)
            client.send("POST /upload/cut HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n")
            client.send([UInt8](repeating: 0x41, count: 300_000))
            XCTAssertTrue(eventually { server.connectionCount == 1 })
        }
        XCTAssertTrue(eventually { responder.upload("cut") != nil })
        let upload = try XCTUnwrap(responder.upload("cut"))
        XCTAssertEqual(upload.error, .clientDisconnected)
        XCTAssertTrue(upload.fileRemoved)
        XCTAssertLessThanOrEqual(upload.bytes, 300_000)
    }

    func testSilentUploader_TimesOut_AndTheConsumerIsTold() throws {
        let (server, responder) = try startServer { $0.bodyReadTimeout = 0.3 }
        let client = try RawClient(port: server.port)
        client.send("POST /upload/stalled HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nonly some")
        XCTAssertEqual(try client.readResponse().status, 408)
        XCTAssertTrue(eventually { responder.upload("stalled") != nil })
        XCTAssertEqual(responder.upload("stalled")?.error, .timedOut)
    }

    func testEarlyResponse_ClosesTheConnection() throws {
        let (server, _) = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /early HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\n\r\nabc")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 401)
        XCTAssertEqual(response.header("connection"), "close")
    }

    // MARK: Downloads

    private func writeDownload(count: Int) throws -> Data {
        var data = Data()
        while data.count < count { data.append(Self.block.prefix(count - data.count)) }
        try data.write(to: directory.appendingPathComponent("download"))
        return data
    }

    func testFileDownload_IsByteExact_WithItsLength() throws {
        let data = try writeDownload(count: 5 << 20)
        let (server, _) = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET /download HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.header("content-length"), String(data.count))
        XCTAssertTrue(Data(response.body) == data)
        client.send("GET /download?offset=1000&length=70000 HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(Data(try client.readResponse().body) == data[1000..<71_000])
        client.send("HEAD /download HTTP/1.1\r\nHost: t\r\n\r\nGET /download?offset=0&length=10 HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readResponse(toHEAD: true)
        XCTAssertEqual(head.header("content-length"), String(data.count))
        XCTAssertTrue(Data(try client.readResponse().body) == data.prefix(10))
    }

    func testPipelinedFileDownloads_AreAllAnswered() throws {
        let data = try writeDownload(count: 1000)
        let (server, _) = try startServer()
        let client = try RawClient(port: server.port)
        // Answered on the I/O thread, the first file fits in the socket at once: the request behind
        // it must not be left waiting for a writability event that never comes.
        client.send("GET /inline/download?offset=0&length=10 HTTP/1.1\r\nHost: t\r\n\r\nGET /inline/download?offset=10&length=20 HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(Data(try client.readResponse().body) == data.prefix(10))
        XCTAssertTrue(Data(try client.readResponse().body) == data[10..<30])
    }

    func testFileDownload_OverTLS() throws {
        let data = try writeDownload(count: 3 << 20)
        let certificate = try TestCertificate()
        let (server, _) = try startServer {
            $0.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        }
        var client = HTTPClient(timeout: 10, maxBodySize: 8 << 20, allowPrivateAddresses: true)
        client.extraTrustAnchorPEM = certificate.pem
        let response = try client.get("https://127.0.0.1:\(server.port)/download")
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(Data(response.body) == data)
    }

    func testStreamedUpload_OverTLS() throws {
        let certificate = try TestCertificate()
        let (server, responder) = try startServer {
            $0.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        }
        var client = HTTPClient(timeout: 10, allowPrivateAddresses: true)
        client.extraTrustAnchorPEM = certificate.pem
        let count = 3 << 20
        var body = Data()
        while body.count < count { body.append(Self.block.prefix(count - body.count)) }
        let response = try client.send(method: "POST", "https://127.0.0.1:\(server.port)/upload/secure", body: Array(body))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "stored \(count)")
        XCTAssertEqual(responder.upload("secure")?.bytes, count)
        try assertFileHoldsPattern(directory.appendingPathComponent("secure"), count: count)
    }

    func testFileBody_RefusesRangesOutsideTheFile() throws {
        _ = try writeDownload(count: 100)
        let path = directory.appendingPathComponent("download").path
        XCTAssertEqual(HTTPFileBody.open(path: path)?.length, 100)
        XCTAssertEqual(HTTPFileBody.open(path: path, offset: 40)?.length, 60)
        XCTAssertNil(HTTPFileBody.open(path: path, offset: 50, length: 51))
        XCTAssertNil(HTTPFileBody.open(path: path, offset: 101))
        XCTAssertNil(HTTPFileBody.open(path: directory.path))
        XCTAssertNil(HTTPFileBody.open(path: directory.appendingPathComponent("missing").path))
    }
}
