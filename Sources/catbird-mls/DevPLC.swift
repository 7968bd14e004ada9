import ArgumentParser
import Dispatch
import Foundation
import HTTP

/// `dev-plc`: a PLC directory for local development.
struct DevPLC: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-plc",
        abstract: "Serve DID documents from a folder on loopback, as a local PLC directory.",
        discussion: """
        GET /<did> answers <folder>/<did>.json; POST /<did> with a DID document stores it (loopback peers only).
        Run the service with PLC_URL=http://127.0.0.1:<port> and DID_RESOLVER_ALLOW_PRIVATE=1: by default the
        service refuses to resolve DIDs at private or loopback addresses (SSRF guard), as production must.
        """)

    @Option(help: "Folder of DID documents.")
    var folder: String

    @Option(help: "Port on 127.0.0.1.")
    var port: Int = 2582

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    }

    func run() async throws {
        let directory = DevPLCDirectory(folder: URL(fileURLWithPath: (folder as NSString).expandingTildeInPath))
        try directory.prepare()
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port, ioThreads: 1, workerThreads: 2),
                                responder: directory.responder)
        try server.start()
        FileHandle.standardError.write(Data("dev PLC serving \(directory.folder.path) at http://127.0.0.1:\(server.port)\n".utf8))
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "dev-plc-signals")
            let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
            for source in sources {
                source.setEventHandler {
                    sources.forEach { $0.cancel() }
                    done.resume()
                }
                source.resume()
            }
        }
        server.shutdown()
    }
}

/// The folder behind the dev PLC and the HTTP answers it gives.
struct DevPLCDirectory: Sendable {
    let folder: URL
    static let maxDocumentSize = 64 << 10

    func prepare() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var responder: ClosureResponder {
        ClosureResponder(mayBlock: { _ in true }, maxBodySize: { _ in Self.maxDocumentSize }) { request in
            respond(to: request)
        }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let did = String(request.path.dropFirst())
        guard Self.isPLC(did) else { return .error(status: 404, error: "NotFound", message: "not a did:plc") }
        let file = folder.appendingPathComponent(did + ".json")
        switch request.method {
        case .get:
            guard let data = FileManager.default.contents(atPath: file.path) else {
                return .error(status: 404, error: "NotFound", message: "DID not registered")
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/did+ld+json"], body: Array(data))
        case .post:
            guard Self.isLoopback(request.remoteAddress) else {
                return .error(status: 403, error: "Forbidden", message: "registration is accepted from loopback only")
            }
            guard let document = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
                  document["id"] as? String == did else {
                return .error(status: 400, error: "InvalidDocument", message: "body must be a DID document whose id is the path's DID")
            }
            do { try Data(request.body).write(to: file, options: .atomic) } catch {
                return .error(status: 500, error: "InternalError", message: "cannot store the document")
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(#"{"ok":true}"#.utf8))
        default:
            return .error(status: 405, error: "MethodNotAllowed", message: "GET or POST")
        }
    }

    /// did:plc spec: `did:plc:` and 24 base32 characters, so the name is also a safe file name.
    static func isPLC(_ did: String) -> Bool {
        guard did.hasPrefix("did:plc:") else { return false }
        let identifier = did.utf8.dropFirst(8)
        return identifier.count == 24 && identifier.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) }
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address == "::ffff:127.0.0.1"
    }
}
