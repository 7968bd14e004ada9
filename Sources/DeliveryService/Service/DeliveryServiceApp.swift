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
    public let metrics: ServiceMetrics
    public let rateLimits: RateLimits
    private let server: HTTPServer
    private let monitor: HealthMonitor
    private let maintenance: MaintenanceJob
    private let retention: RetentionJob
    private let events: EventService

    public init(configuration base: ServiceConfiguration) throws {
        var configuration = base
        try configuration.applyOperationalSettings(from: base.environment)
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
        let blobs = try BlobDirectory(root: configuration.blobDirectory)
        let reclaimer = BlobReclaimer(store: store, blobs: blobs, log: log)
        retention = RetentionJob(store: store, settings: try .fromEnvironment(configuration.environment), log: log,
                                 extraSteps: [BlobRetention(reclaimer: reclaimer, now: { Date() }),
                                              BlobFileSweep(reclaimer: reclaimer, now: { Date() })])
        let limits = try configuration.limits.applying(environment: configuration.environment)
        let batching = try MessageBatchSettings.fromEnvironment(configuration.environment)
        let environment = MethodEnvironment(store: store, log: log, limits: limits, blobs: blobs,
                                            messages: MessageBatcher(store: store, lanes: batching.lanes,
                                                                     maxBatch: batching.maxBatch))
        let events = try EventService(store: store, settings: try .fromEnvironment(configuration.environment),
                                      serviceEndpoint: configuration.serviceEndpoint, log: log)
        self.events = events
        let methods = DeliveryServiceMethods.all(environment)
            + [GetSubscriptionTicket.method(environment, events: events), SubscribeConvoEvents.method()]
        let metrics = ServiceMetrics(nsids: methods.map(\.nsid))
        let rateLimits = RateLimits(configuration: configuration.rateLimits)
        self.metrics = metrics
        self.rateLimits = rateLimits
        let router = XRPCRouter(
            methods: methods,
            plainRoutes: [
                "/xrpc/_health": PlainRoutes.health(monitor),
                "/metrics": PlainRoutes.metrics(metrics, token: configuration.metricsToken),
                "/.well-known/did.json": PlainRoutes.didDocument(serviceDID: configuration.serviceDID,
                                                                  endpoint: configuration.serviceEndpoint),
            ],
            authenticate: { header, nsid throws(AuthError) in try verifier.verify(authorization: header, lexiconMethod: nsid) },
            log: log, rateLimits: rateLimits, metrics: metrics,
            webSocketRoutes: [EventService.subscribeNSID: { request, authenticate in
                try events.upgrade(request, authenticate: authenticate)
            }],
            deferredReplayAuth: DeferredReplayAuth(
                verify: { header, nsid throws(AuthError) in try verifier.verifyDeferringReplay(authorization: header, lexiconMethod: nsid) },
                record: { claim throws(AuthError) in try verifier.record(claim) }))
        var httpConfiguration = HTTPServerConfiguration()
        httpConfiguration.host = configuration.host
        httpConfiguration.port = configuration.port
        httpConfiguration.workerThreads = configuration.workerThreads
        httpConfiguration.headerReadTimeout = configuration.headerReadTimeout
        httpConfiguration.bodyReadTimeout = configuration.bodyReadTimeout
        httpConfiguration.idleTimeout = configuration.idleTimeout
        httpConfiguration.maxConnections = configuration.maxConnections
        httpConfiguration.shutdownGracePeriod = configuration.shutdownGracePeriod
        // TLS_CERT_FILE + TLS_KEY_FILE terminate TLS here; without them plain HTTP (behind a proxy).
        let fromEnvironment = HTTPServerConfiguration(environment: configuration.environment)
        httpConfiguration.tls = fromEnvironment.tls
        httpConfiguration.maxConnectionsPerIP = fromEnvironment.maxConnectionsPerIP
        let server = HTTPServer(configuration: httpConfiguration, responder: router)
        self.server = server
        let database = self.database
        metrics.setGauges(ServiceMetrics.Gauges(
            httpConnections: { server.connectionCount },
            databasePool: { database.poolStats },
            rateLimitKeys: { rateLimits.keyCount }))
    }

    public func start() throws {
        try server.start()
        monitor.start()
        maintenance.start()
        retention.start()
        events.start(databaseURL: configuration.databaseURL)
        log.info("listening", ["host": configuration.host, "port": String(server.port)])
    }

    /// The bound port (the configured one, or the ephemeral one for port 0).
    public var port: Int { server.port }

    /// Whether the server terminates TLS itself.
    public var servesTLS: Bool { server.configuration.tls != nil }

    /// Re-reads the certificate and key files (SIGHUP); new connections use them, and on error
    /// the old ones stay in use.
    public func reloadTLS() throws {
        try server.reloadTLS()
    }

    /// Open HTTP connections.
    public var connectionCount: Int { server.connectionCount }

    /// Stops accepting, lets in-flight requests finish within `SHUTDOWN_GRACE_PERIOD`, stops the
    /// background jobs, then releases the database. Safe to call more than once.
    public func shutdown() {
        log.info("shutting down", ["grace_s": String(configuration.shutdownGracePeriod)])
        server.shutdown()
        monitor.stop()
        maintenance.stop()
        retention.stop()
        events.stop()
        database.close()
        log.info("stopped")
    }
}
