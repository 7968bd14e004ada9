import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// TLS termination on the server's own sockets, checked with the repository's HTTPClient and curl.
final class TLSServerTests: XCTestCase {
    private func startServer(
        certificate: TestCertificate,
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 4)
        configuration.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate.certificateFile,
                                                       privateKeyFile: certificate.keyFile)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: HTTPServerTests.EchoResponder())
        try server.start()
        addTeardownBlock { server.shutdown() }
        return server
    }

    private func client(trusting certificate: TestCertificate) -> HTTPClient {
        var client = HTTPClient(timeout: 5, maxBodySize: 8 << 20, allowPrivateAddresses: true)
        client.extraTrustAnchorPEM = certificate.pem
        return client
    }

    func testTLS_AnswersAVerifiedClient() throws {
        let certificate = try TestCertificate()
        let server = try startServer(certificate: certificate)
        let client = client(trusting: certificate)
        let get = try client.get("https://127.0.0.1:\(server.port)/hello")
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(String(decoding: get.body, as: UTF8.self), "GET /hello ")
        let post = try client.send(method: "POST", "https://127.0.0.1:\(server.port)/block/upload", body: Array("secret".utf8))
        XCTAssertEqual(String(decoding: post.body, as: UTF8.self), "POST /block/upload secret")
    }

    func testTLS_LargeResponse_ArrivesIntact() throws {
        let certificate = try TestCertificate()
        let server = try startServer(certificate: certificate)
        let response = try client(trusting: certificate).get("https://127.0.0.1:\(server.port)/large")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, HTTPServerTests.largeBody.count)
        XCTAssertTrue(response.body == HTTPServerTests.largeBody)
    }

    func testTLS_KeepAliveAndALPN_WithCurl() throws {
        let certificate = try TestCertificate()
        let server = try startServer(certificate: certificate)
        let base = "https://127.0.0.1:\(server.port)"
        // Two URLs in one curl run share a connection when the server keeps it alive.
        let result = try runTool("/usr/bin/curl", [
            "-s", "--cacert", certificate.certificateFile, "--http1.1",
            "-w", " connects=%{num_connects} version=%{http_version} verify=%{ssl_verify_result}\n",
            "\(base)/one", "\(base)/two",
        ])
        XCTAssertEqual(result.status, 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            "GET /one  connects=1 version=1.1 verify=0",
            "GET /two  connects=0 version=1.1 verify=0",
        ])
    }

    func testUntrustedCertificate_IsRefusedByTheClient() throws {
        let served = try TestCertificate()
        let other = try TestCertificate()
        let server = try startServer(certificate: served)
        XCTAssertThrowsError(try client(trusting: other).get("https://127.0.0.1:\(server.port)/"))
    }

    func testReloadTLS_NewConnectionsGetTheNewCertificate() throws {
        let first = try TestCertificate()
        let second = try TestCertificate()
        let onDisk = try TestCertificate()
        try first.install(over: onDisk)
        let server = try startServer(certificate: onDisk)
        let url = "https://127.0.0.1:\(server.port)/who"
        XCTAssertEqual(try client(trusting: first).get(url).status, 200)
        XCTAssertThrowsError(try client(trusting: second).get(url))

        try second.install(over: onDisk)
        try server.reloadTLS()
        XCTAssertEqual(try client(trusting: second).get(url).status, 200)
        XCTAssertThrowsError(try client(trusting: first).get(url))
    }

    func testReloadTLS_WithBrokenFiles_KeepsTheOldCertificate() throws {
        let certificate = try TestCertificate()
        let onDisk = try TestCertificate()
        try certificate.install(over: onDisk)
        let server = try startServer(certificate: onDisk)
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: onDisk.keyFile))
        XCTAssertThrowsError(try server.reloadTLS()) { error in
            guard case .invalidCredentials = error as? TLSError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try client(trusting: certificate).get("https://127.0.0.1:\(server.port)/").status, 200)
    }

    func testMismatchedKey_FailsStart() throws {
        let certificate = try TestCertificate()
        let other = try TestCertificate()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 1)
        configuration.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate.certificateFile, privateKeyFile: other.keyFile)
        let server = HTTPServer(configuration: configuration, responder: HTTPServerTests.EchoResponder())
        XCTAssertThrowsError(try server.start()) { error in
            guard case .tls(.invalidCredentials) = error as? SocketError else { return XCTFail("\(error)") }
        }
    }

    func testPlaintextClientOnTheTLSPort_IsDropped() throws {
        let certificate = try TestCertificate()
        let server = try startServer(certificate: certificate)
        let raw = try RawClient(port: server.port)
        raw.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let answer = try raw.readUntilClosed()
        XCTAssertFalse(String(decoding: answer, as: UTF8.self).contains("HTTP/1.1"))
        XCTAssertEqual(try client(trusting: certificate).get("https://127.0.0.1:\(server.port)/after").status, 200)
    }

    func testSilentClient_IsClosedByTheHandshakeTimeout() throws {
        let certificate = try TestCertificate()
        let server = try startServer(certificate: certificate) { $0.tls?.handshakeTimeout = 0.3 }
        let raw = try RawClient(port: server.port)
        XCTAssertTrue(try raw.isClosedByPeer())
        XCTAssertTrue(eventually { server.connectionCount == 0 })
    }

    func testWebSocket_OverTLS_WithOpenSSLClient() throws {
        let certificate = try TestCertificate()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 1)
        configuration.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        let server = HTTPServer(configuration: configuration,
                                responder: WebSocketServerTests.Responder(handler: WebSocketServerTests.EchoHandler()))
        try server.start()
        addTeardownBlock { server.shutdown() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_client", "-quiet", "-connect", "127.0.0.1:\(server.port)", "-CAfile", certificate.certificateFile,
                             "-verify_return_error", "-alpn", "http/1.1"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate() }
        let handshake = "GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(WebSocketTestClient.key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        input.fileHandleForWriting.write(Data(handshake.utf8) + Data(WebSocketFrame.encode(opcode: .text, payload: Array("wss".utf8), maskingKey: [9, 8, 7, 6])))

        let echo = Data([0x81, 0x03] + Array("wss".utf8))
        let received = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let chunk = reader.availableData
                let complete = received.withLock { data in
                    data.append(chunk)
                    return data.range(of: echo) != nil
                }
                if complete || chunk.isEmpty { break }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        let text = received.withLock { $0 }
        XCTAssertTrue(String(decoding: text, as: UTF8.self).hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        XCTAssertNotNil(text.range(of: echo))
    }
}
