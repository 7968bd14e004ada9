// A trivial server for load tests (wrk). Built together with the HTTP sources as one module by
// Benchmarks/HTTPBench/run.sh, outside the package so it never slows the normal build.
#if canImport(Glibc)
import Glibc
#endif

@main
enum HTTPBenchServer {
    static func main() throws {
        let environment = Dictionary(uniqueKeysWithValues: ProcessEnvironment.pairs())
        var configuration = HTTPServerConfiguration()
        if let host = environment["HOST"], !host.isEmpty { configuration.host = host }
        if let port = environment["PORT"].flatMap(Int.init) { configuration.port = port }
        if let threads = environment["IO_THREADS"].flatMap(Int.init) { configuration.ioThreads = threads }
        if environment["REUSE_PORT"] == "1" { configuration.reusePort = true }
        let blocking = environment["BLOCKING"] == "1"
        let size = environment["BODY_SIZE"].flatMap(Int.init)
        let body = size.map { [UInt8](repeating: 0x61, count: $0) } ?? Array("Hello, World!".utf8)
        let responder = ClosureResponder(mayBlock: { _ in blocking }) { _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: body)
        }
        let server = HTTPServer(configuration: configuration, responder: responder)
        try server.start()
        print("listening on \(configuration.host):\(server.port) io=\(configuration.ioThreads) blocking=\(blocking)")
        while true { sleep(3600) }
    }
}

enum ProcessEnvironment {
    static func pairs() -> [(String, String)] {
        var result: [(String, String)] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
            }
            cursor += 1
        }
        return result
    }
}
