import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// `HTTPResponder.startsOnIOThread`: a request that may block starts on its I/O thread, hands what
/// blocks to the worker pool, and is answered the same way as a worker's.
final class IOThreadStartTests: XCTestCase {
    /// Every path under /start starts on the I/O thread, /io is answered inline there (which tells
    /// the responder the server's one I/O thread); the body names the thread each step ran on.
    struct StartingResponder: HTTPResponder {
        final class Known: Sendable { let ioThread = Mutex<UInt?>(nil) }
        let known = Known()

        func mayBlock(_ head: HTTPRequestHead) -> Bool { head.path != "/io" }
        func startsOnIOThread(_ head: HTTPRequestHead) -> Bool { head.path.hasPrefix("/start") }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            guard request.path != "/io" else {
                known.ioThread.withLock { $0 = UInt(pthread_self()) }
                return Self.text("io")
            }
            return Self.text("worker-only \(thread)")
        }

        func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse? {
            let first = "\(thread) onIOThread=\(resumption.isOnIOThread) attempt=\(resumption.attempt)"
            switch request.path {
            case "/start/now":
                return Self.text(first)
            case "/start/blocking":
                resumption.runBlocking {
                    usleep(50_000)
                    resumption.respond(Self.text(first + " then " + thread))
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

        /// "io" on the I/O thread, else "worker" (the server has no other threads that answer).
        /// By pthread id: Foundation's thread names read back unreliably on a thread's first use.
        var thread: String { known.ioThread.withLock { $0 } == UInt(pthread_self()) ? "io" : "worker" }

        static func text(_ text: String) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
        }
    }

    /// A server with one I/O thread, which the responder has learnt.
    private func startServer() throws -> HTTPServer {
        let server = try startLoopbackServer(for: self, responder: StartingResponder(), ioThreads: 1, workerThreads: 2)
        let client = try RawClient(port: server.port)
        client.send(get("/io"))
        XCTAssertEqual(try client.readResponse().bodyText, "io")
        return server
    }

    private func get(_ path: String) -> String { getRequest(path) }

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
