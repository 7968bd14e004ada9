import ATProto
import DeliveryStore
import Foundation
import HTTP
import Store

/// Wires the layers together: database and migrations, service auth, the XRPC methods, the HTTP
/// server. The executable and the integration tests both start the service through this type.
public final class DeliveryServiceApp: Sendable {
    public let configuration: ServiceConfiguration
    public let database: Database
    public let log: Log
    private let server: HTTPServer
    private let monitor: HealthMonitor
    private let maintenance: MaintenanceJob
    private let retention: RetentionJob

    public init(configuration: ServiceConfiguration) throws {
        self.configuration = configuration
        log = Log(minimum: configuration.logLevel)
        guard !configuration.databaseURL.isEmpty else {
            throw ServiceConfiguration.ConfigurationError.invalid("DATABASE_URL", "(unset)")
        }
        database = try Database(url: configuration.databaseURL, poolSize: configuration.databasePoolSize)
        let applied = try Migrator(directory: URL(fileURLWithPath: configuration.migrationsDirectory)).migrate(database)
        for name in applied { log.info("migration applied", ["name": name]) }

        monitor = HealthMonitor(database: database)
        let authConfiguration = ServiceAuthConfiguration.fromEnvironment(configuration.environment.merging(
            ["SERVICE_DID": configuration.serviceDID]) { _, new in new })
        let replayStore = PostgresReplayStore(database: database)
        let verifier = ServiceAuthVerifier(configuration: authConfiguration,
                                           resolver: DIDResolver(configuration: authConfiguration),
                                           replayStore: replayStore)
        let store = DeliveryStore(database: database)
        maintenance = MaintenanceJob(store: store, replayStore: replayStore, log: log)
        retention = RetentionJob(store: store, settings: try .fromEnvironment(configuration.environment), log: log)
        let router = XRPCRouter(
            methods: DeliveryServiceMethods.all(MethodEnvironment(store: store, log: log,
                                                                 limits: try configuration.limits.applying(
                                                                     environment: configuration.environment))),
            plainRoutes: [
                "/xrpc/_health": PlainRoutes.health(monitor),
                "/.well-known/did.json": PlainRoutes.didDocument(serviceDID: configuration.serviceDID,
                                                                  endpoint: configuration.serviceEndpoint),
            ],
            authenticate: { header, nsid throws(AuthError) in try verifier.verify(authorization: header, lexiconMethod: nsid) },
            log: log)
        var httpConfiguration = HTTPServerConfiguration()
        httpConfiguration.host = configuration.host
        httpConfiguration.port = configuration.port
        httpConfiguration.workerThreads = configuration.workerThreads
        server = HTTPServer(configuration: httpConfiguration, responder: router)
    }

    public func start() throws {
        try server.start()
        monitor.start()
        maintenance.start()
        retention.start()
        log.info("listening", ["host": configuration.host, "port": String(server.port)])
    }

    /// The bound port (the configured one, or the ephemeral one for port 0).
    public var port: Int { server.port }

    /// Stops accepting, finishes in-flight requests, then releases the database.
    public func shutdown() {
        server.shutdown()
        monitor.stop()
        maintenance.stop()
        retention.stop()
        database.close()
        log.info("stopped")
    }
}
