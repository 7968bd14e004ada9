import Dispatch
import Foundation
import HTTP

/// The bench's PLC directory: `prepare` and `add-members` write each user's DID document to a
/// folder; `ds-bench plc` serves `GET /<did>` from that folder, so the server can start before the
/// users exist and the directory outlives the process that created them.
enum PLCDirectory {
    /// Writes the document where `serve` finds it (atomically: a half-written file is never served).
    static func publish(_ user: BenchUser, in directory: String) throws {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(user.did.rawValue)
        try Data(user.didDocument.utf8).write(to: url, options: .atomic)
    }

    /// Serves the folder on 127.0.0.1:`port` until the process is killed. With `junkDelay`, a DID
    /// that is not in the folder gets its 404 only after that many seconds (a directory that stalls
    /// on junk, issue 14), without holding a thread meanwhile.
    static func serve(port: Int, directory: String, junkDelay: Double? = nil) throws -> Never {
        let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: port, ioThreads: 1, workerThreads: 4,
                                                    headerReadTimeout: 60, bodyReadTimeout: 60, idleTimeout: 120, maxConnections: 65_536)
        let server = HTTPServer(configuration: configuration, responder: Responder(directory: directory, junkDelay: junkDelay))
        try server.start()
        while true { sleep(3600) }
    }

    private struct Responder: HTTPResponder {
        let directory: String
        let junkDelay: Double?

        func respond(to request: HTTPRequest) -> HTTPResponse {
            document(at: request.path, in: directory)
        }

        func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse? {
            let response = document(at: request.path, in: directory)
            guard let junkDelay, response.status == 404, resumption.attempt == 0 else { return response }
            DispatchQueue.global().asyncAfter(deadline: .now() + junkDelay) { resumption.resume() }
            return nil
        }
    }

    static func document(at path: String, in directory: String) -> HTTPResponse {
        let name = String(path.dropFirst())
        // Only did:plc names, so a request cannot wander out of the folder.
        guard name.hasPrefix("did:plc:"),
              name.dropFirst(8).allSatisfy({ ("a"..."z").contains($0) || ("2"..."7").contains($0) }),
              let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            return HTTPResponse(status: 404, headers: ["Content-Type": "application/json"],
                                body: Array("{\"message\":\"DID not registered\"}".utf8))
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/did+ld+json"], body: Array(data))
    }
}
