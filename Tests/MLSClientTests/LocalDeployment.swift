@testable import catbird_mls
import ArgumentParser
import DeliveryService
import Foundation
import HTTP
import Store
import XCTest

/// What the README walkthrough runs, in-process: a fresh PostgreSQL database on the server of
/// DATABASE_URL, the dev PLC directory (`dev-plc`'s responder) on loopback, and the delivery
/// service on an ephemeral port with PLC_URL pointing at it and DID_RESOLVER_ALLOW_PRIVATE=1.
final class LocalDeployment {
    static let serviceDID = "did:web:localhost"

    let plc: HTTPServer
    let app: DeliveryServiceApp
    let root: URL
    private let adminURL: String
    private let databaseName: String

    var serverURL: String { "http://127.0.0.1:\(app.port)" }
    var plcURL: String { "http://127.0.0.1:\(plc.port)" }

    init() throws {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "DATABASE_URL is not set: run the tests through `make test`"])
        }
        adminURL = url
        databaseName = "catbird_client_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try Database(url: url, poolSize: 1)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(databaseName)")
        var components = try XCTUnwrap(URLComponents(string: url))
        components.path = "/" + databaseName

        root = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-walkthrough-" + UUID().uuidString)
        let directory = DevPLCDirectory(folder: root.appendingPathComponent("plc"))
        try directory.prepare()
        plc = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2),
                         responder: directory.responder)
        try plc.start()

        let configuration = try ServiceConfiguration.fromEnvironment([
            "HOST": "127.0.0.1", "PORT": "0", "DATABASE_URL": try XCTUnwrap(components.string), "DATABASE_POOL_SIZE": "4",
            "WORKER_THREADS": "8", "SERVICE_DID": Self.serviceDID, "MIGRATIONS_DIR": Self.repositoryRoot + "/migrations",
            "LOG_LEVEL": "warning", "PLC_URL": "http://127.0.0.1:\(plc.port)", "DID_RESOLVER_ALLOW_PRIVATE": "1",
            "BLOB_DIR": root.appendingPathComponent("blobs").path,
        ])
        app = try DeliveryServiceApp(configuration: configuration)
        try app.start()
    }

    func shutdown() {
        app.shutdown()
        plc.shutdown()
        try? FileManager.default.removeItem(at: root)
        if let admin = try? Database(url: adminURL, poolSize: 1) {
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(databaseName) WITH (FORCE)")
            admin.close()
        }
    }

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// A user's directory.
    func directory(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// Runs one `catbird-mls` command line against this deployment.
    func run(_ arguments: [String], as user: String) async throws {
        var command = try CatbirdMLS.parseAsRoot(arguments + [
            "--dir", directory(user), "--server", serverURL, "--service-did", Self.serviceDID, "--quiet",
        ])
        if var async = command as? any AsyncParsableCommand {
            try await async.run()
        } else {
            try command.run()
        }
    }
}
