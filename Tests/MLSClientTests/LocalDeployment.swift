@testable import catbird_mls
import ArgumentParser
import DeliveryService
import Foundation
import HTTP
import Store
import TestSupport
import XCTest

/// What the README walkthrough runs, in-process: a fresh PostgreSQL database on the server of
/// DATABASE_URL, the dev PLC directory (`dev-plc`'s responder) on loopback, and the delivery
/// service on an ephemeral port with PLC_URL pointing at it and DID_RESOLVER_ALLOW_PRIVATE=1.
final class LocalDeployment {
    static let serviceDID = "did:web:localhost"

    let plc: HTTPServer
    let app: DeliveryServiceApp
    let root: URL
    private let namespace: TestDatabase

    var serverURL: String { "http://127.0.0.1:\(app.port)" }
    var plcURL: String { "http://127.0.0.1:\(plc.port)" }

    init() throws {
        namespace = try TestDatabase(.database, prefix: "catbird_client", poolSize: 1)

        root = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-walkthrough-" + UUID().uuidString)
        let directory = DevPLCDirectory(folder: root.appendingPathComponent("plc"))
        try directory.prepare()
        plc = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2),
                         responder: directory.responder)
        try plc.start()

        let configuration = try ServiceConfiguration.fromEnvironment([
            "HOST": "127.0.0.1", "PORT": "0", "DATABASE_URL": namespace.url, "DATABASE_POOL_SIZE": "4",
            "WORKER_THREADS": "8", "SERVICE_DID": Self.serviceDID, "MIGRATIONS_DIR": TestDatabase.migrations.path,
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
        namespace.drop()
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
