import Foundation
import HTTP
import Synchronization

/// A loopback HTTP server (the repo's HTTPServer) that answers each path from a queue of canned
/// replies, the last one repeating, and records every request it saw.
final class ScriptedServer: Sendable {
    struct Canned: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: String = ""
    }

    struct Seen: Sendable {
        var method: String
        var path: String
        var query: String
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    private final class State: Sendable {
        let scripts = Mutex<[String: [Canned]]>([:])
        let log = Mutex<[Seen]>([])
    }

    private let server: HTTPServer
    private let state = State()

    init() throws {
        let state = self.state
        let responder = ClosureResponder { request in
            state.log.withLock {
                $0.append(Seen(method: request.method.rawValue, path: request.path, query: request.query,
                               headers: request.headers.map { ($0.name, $0.value) }, body: request.body))
            }
            let reply: Canned? = state.scripts.withLock { table in
                guard var queue = table[request.path], let first = queue.first else { return nil }
                if queue.count > 1 { queue.removeFirst(); table[request.path] = queue }
                return first
            }
            guard let reply else { return HTTPResponse.error(status: 404, error: "MethodNotImplemented", message: "no script") }
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            for (name, value) in reply.headers { headers.add(name, value) }
            return HTTPResponse(status: reply.status, headers: headers, body: Array(reply.body.utf8))
        }
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2),
                            responder: responder)
        try server.start()
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// Replies for `/xrpc/<nsid>`, in order; the last repeats.
    func script(_ nsid: String, _ replies: Canned...) {
        state.scripts.withLock { $0["/xrpc/" + nsid] = replies }
    }

    func requests(_ nsid: String) -> [Seen] {
        state.log.withLock { $0.filter { $0.path == "/xrpc/" + nsid } }
    }

    func stop() { server.shutdown() }
}
