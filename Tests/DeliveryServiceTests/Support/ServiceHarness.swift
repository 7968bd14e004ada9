import ATProto
import DeliveryService
import Foundation
import HTTP
import Primitives
import Store
import TestSupport
import XCTest

/// The real service for integration tests: a fresh PostgreSQL database (created on the server of
/// DATABASE_URL, dropped afterwards), a loopback PLC directory, a loopback PDS holding every test
/// user's public records (none unless a test adds some), and the HTTP server on an ephemeral port.
/// Tests talk to it over sockets with real service-auth tokens.
final class ServiceHarness {
    static let serviceDID = "did:web:mls.test"

    let plc: LoopbackHTTPServer
    /// Where every user `makeUser` makes keeps its records (blocks, follows, chat policy).
    let pds: LoopbackPDS
    let app: DeliveryServiceApp
    /// The service's own database (`TestDatabase`, scope `.database`).
    let namespace: TestDatabase
    var databaseURL: String { namespace.url }
    /// The configuration `app` runs with; `startNode` reuses it.
    let configuration: ServiceConfiguration
    /// BLOB_DIR: a fresh temporary directory unless the test names one; removed at shutdown.
    let blobDirectory: String
    private let client = HTTPClient(timeout: 10, maxBodySize: 64 << 20, allowPrivateAddresses: true)

    var baseURL: String { "http://127.0.0.1:\(app.port)" }

    /// - Parameter server: the PostgreSQL server to create the database on; DATABASE_URL's by default.
    /// - Parameter limits: replaces the service's `ServiceLimits` (which no variable sets), e.g. a small member cap.
    /// - Parameter clock: the chat contract's clock (`TestClock` to let lifetimes pass without waiting).
    init(environment extra: [String: String] = [:], server: String? = nil, limits: ServiceLimits? = nil,
         clock: @escaping @Sendable () -> Date = Date.init) throws {
        namespace = try TestDatabase(.database, prefix: "catbird_test", poolSize: 1, server: server)
        plc = try LoopbackHTTPServer()
        pds = try LoopbackPDS()
        blobDirectory = extra["BLOB_DIR"] ?? NSTemporaryDirectory() + "catbird-blobs-" + namespace.name
        // Through the same parser as the executable, so a test's variables mean what they mean in production.
        var configuration = try ServiceConfiguration.fromEnvironment([
            "HOST": "127.0.0.1", "PORT": "0", "DATABASE_URL": namespace.url, "DATABASE_POOL_SIZE": "8",
            "WORKER_THREADS": "16", "SERVICE_DID": Self.serviceDID, "SERVICE_ENDPOINT": "https://mls.test",
            "MIGRATIONS_DIR": TestDatabase.migrations.path, "LOG_LEVEL": "warning",
            "PLC_URL": plc.baseURL, "DID_RESOLVER_ALLOW_PRIVATE": "1", "BLOB_DIR": blobDirectory,
            // Every test user comes from 127.0.0.1, new to the service: the per-address budget of DID
            // fetches would meter the tests, not an attacker (AbuseResolutionTests sets its own).
            "RATE_LIMIT_DID_RESOLUTION": "off",
        ].merging(extra) { _, new in new })
        if let limits { configuration.limits = limits }
        self.configuration = configuration
        do {
            app = try DeliveryServiceApp(configuration: configuration, clock: clock)
        } catch {
            // A configuration the service refuses leaves nothing behind.
            plc.stop()
            pds.stop()
            namespace.drop()
            throw error
        }
        try app.start()
    }

    /// Another server process on the same database and PLC directory, as a second node behind a
    /// load balancer would be; the caller shuts it down.
    func startNode() throws -> DeliveryServiceApp {
        let node = try DeliveryServiceApp(configuration: configuration)
        try node.start()
        return node
    }

    func shutdown() {
        app.shutdown()
        plc.stop()
        pds.stop()
        try? FileManager.default.removeItem(atPath: blobDirectory)
        namespace.drop()
    }

    static var repositoryRoot: String { TestDatabase.repositoryRoot }

    /// A new user whose DID document the PLC directory serves, naming `pds` (the harness's own
    /// unless given) as its PDS.
    func makeUser(curve: ECCurve = .secp256k1, pds: LoopbackPDS? = nil) -> TestIdentity {
        var user = TestIdentity(curve: curve)
        user.pdsEndpoint = (pds ?? self.pds).baseURL
        user.publish(on: plc)
        return user
    }

    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
        var error: String? { json["error"] as? String }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    /// Calls `/xrpc/<nsid>`: GET with `query` or POST with a JSON object, as `user` when given.
    @discardableResult
    func call(_ nsid: String, as user: TestIdentity? = nil, query: [(String, String)] = [],
              json: [String: Any]? = nil, rawBody: [UInt8]? = nil, method: String? = nil,
              headers extraHeaders: [(String, String)] = []) throws -> Reply {
        var headers = extraHeaders
        if let user { headers.append(("Authorization", "Bearer " + user.token(audience: Self.serviceDID, nsid: nsid))) }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            headers.append(("Content-Type", "application/json"))
        } else if let rawBody {
            body = rawBody
        }
        var url = baseURL + "/xrpc/" + nsid
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
            url += "?" + (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        }
        let verb = method ?? ((json != nil || rawBody != nil) ? "POST" : "GET")
        let response = try client.send(method: verb, url, headers: headers, body: body)
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    func get(path: String) throws -> Reply {
        let response = try client.send(method: "GET", baseURL + path)
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }
}
