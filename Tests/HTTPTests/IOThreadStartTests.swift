import Foundation
import XCTest
@testable import HTTP

/// `HTTPResponder.startsOnIOThread`: a request that may block starts on its I/O thread, hands what
/// blocks to the worker pool, and is answered the same way as a worker's.
final class IOThreadStartTests: XCTestCase {
    /// Every path under /start starts on the I/O thread; the body names the threads each step ran on.
    struct StartingResponder: HTTPResponder {
        func mayBlock(_ head: HTTPRequestHead) -> Bool { true }
        func startsOnIOThread(_ head: HTTPRequestHead) -> Bool { head.path.hasPrefix("/start") }

        func respond(to request: HTTPRequest) -> HTTPResponse { Self.text("worker-only \(Self.thread)") }

        func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse? {
            let first = "\(Self.thread) onIOThread=\(resumption.isOnIOThread) attempt=\(resumption.attempt)"
            switch request.path {
            case "/start/now":
                return Self.text(first)
            case "/start/blocking":
                resumption.runBlocking {
                    usleep(50_000)
                    resumption.respond(Self.text(first + " then " + Self.thread))
                }
                return nil
            case "/start/resume":
                guard resumption.attempt == 0 else { return Self.text(first) }
                resumption.resume()
                return nil
            default:
                return respond(to: request)
            }
        }

        /// "io", "worker" or "other", from the thread's name.
        static var thread: String {
            let name = Thread.current.name ?? ""
            if name.hasPrefix("http-io") { return "io" }
            if name.hasPrefix("http-worker") { return "worker" }
            return "other"
        }

        static func text(_ text: String) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
        }
    }

    private func startServer() throws -> HTTPServer {
        let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2)
        let server = HTTPServer(configuration: configuration, responder: StartingResponder())
        try server.start()
        addTeardownBlock { server.shutdown() }
        return server
    }

    private func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n" }

    func testAnswerGivenOnTheIOThread_IsSent() throws {
        let client = try RawClient(port: try startServer().port)
        client.send(get("/start/now"))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "io onIOThread=true attempt=0")
    }

    func testBlockingWork_RunsOnAWorker_AndAnswersFromThere() throws {
        let client = try RawClient(port: try startServer().port)
        client.send(get("/start/blocking"))
        XCTAssertEqual(try client.readResponse().bodyText, "io onIOThread=true attempt=0 then worker")
    }

    func testResume_RunsTheRequestAgainOnAWorker() throws {
        let client = try RawClient(port: try startServer().port)
        client.send(get("/start/resume"))
        XCTAssertEqual(try client.readResponse().bodyText, "worker onIOThread=false attempt=1")
    }

    func testOtherBlockingRequests_StillRunOnWorkers() throws {
        let client = try RawClient(port: try startServer().port)
        client.send(get("/other"))
        XCTAssertEqual(try client.readResponse().bodyText, "worker-only worker")
    }

    func testPipelinedRequests_AreAnsweredInOrder_WhicheverThreadAnswers() throws {
        let client = try RawClient(port: try startServer().port)
        let paths = ["/start/blocking", "/start/now", "/other", "/start/resume", "/start/now"]
        client.send(paths.map(get).joined())
        let expected = [
            "io onIOThread=true attempt=0 then worker", "io onIOThread=true attempt=0", "worker-only worker",
            "worker onIOThread=false attempt=1", "io onIOThread=true attempt=0",
        ]
        for text in expected {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.bodyText, text)
        }
    }
}
