import XCTest
@testable import HTTP

/// The real server on 127.0.0.1, port 0, for a test: started with `responder`, shut down when the
/// test ends. `configure` adjusts the configuration first (2 I/O threads, 4 workers by default).
func startLoopbackServer(
    for test: XCTestCase, responder: any HTTPResponder, ioThreads: Int = 2, workerThreads: Int = 4,
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: ioThreads, workerThreads: workerThreads)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    test.addTeardownBlock { server.shutdown() }
    return server
}

/// A GET request's text, with `extra` header lines (each ending in CRLF).
func getRequest(_ path: String, extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}
