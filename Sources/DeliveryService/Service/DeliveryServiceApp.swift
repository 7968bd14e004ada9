import ATProto
import DeliveryStore
import Foundation
import HTTP
import MQTT
import MQTTServer
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
    private let router: XRPCRouter
    private let monitor: HealthMonitor
    /// Runs once a minute; tests run a pass with `runMaintenance()`.
    private let maintenance: MaintenanceJob
    private let retention: RetentionJob
    private let events: EventService
    /// The chat contract's event stream on this node.
    private let chatHub: ChatEventHub
    /// The MQTT listener's Relay protocol (MQTT_PORT); nil when it is off.
    private let relay: RelayBroker?
    /// The push outbox's worker (docs/push.md) and this node's live devices; nil when no platform is configured.
    let push: PushDispatcher?
    private let pushPresence: PushPresence?
    /// The MQTT listener's broker, when it runs (tests).
    var relayBroker: RelayBroker? { relay }

    /// - Parameter clock: the chat contract's clock (lifetimes of tickets, sessions, blobs); tests move it.
    public init(configuration: ServiceConfiguration, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.configuration = configuration
        log = Log(minimum: configuration.logLevel)
        database = try Database(url: configuration.database.url, poolSize: configuration.database.poolSize,
                                connectTimeout: DatabaseSettings.connectTimeout)
        let applied = try Migrator(directory: URL(fileURLWithPath: configuration.database.migrationsDirectory)).migrate(database)
        for name in applied { log.info("migration applied", ["name": name]) }

        monitor = HealthMonitor(database: database)
        let replayStore = PostgresReplayStore(database: database)
        let log = self.log
        let resolver = DIDResolver(configuration: configuration.auth, diagnostics: { _, detail in
            // Name lookup, connect and TLS details are for the operator; callers only learn that the
            // document could not be fetched.
            log.info("DID document fetch failed", ["reason": detail])
        })
        let verifier = ServiceAuthVerifier(configuration: configuration.auth, resolver: resolver, replayStore: replayStore)
        var storeConfiguration = configuration.limits.storeConfiguration
        storeConfiguration.pushEnabled = configuration.push.enabled
        let store = DeliveryStore(database: database, configuration: storeConfiguration)
        let blobs = try BlobDirectory(root: configuration.blobDirectory)
        let reclaimer = BlobReclaimer(store: store, blobs: blobs, log: log)
        maintenance = MaintenanceJob(store: store, replayStore: replayStore,
                                     chatBlobs: ChatBlobExpiry(reclaimer: reclaimer, clock: clock), log: log)
        retention = RetentionJob(store: store, settings: configuration.retention, log: log,
                                 extraSteps: [BlobRetention(reclaimer: reclaimer, now: { Date() }),
                                              BlobFileSweep(reclaimer: reclaimer, now: { Date() })]
                                     + ChatTableRetention.all(store: store, eventLifetime: configuration.chatEventLifetime))
        let environment = MethodEnvironment(store: store, log: log, limits: configuration.limits, blobs: blobs,
                                            messages: MessageBatcher(store: store, lanes: configuration.messageBatching.lanes,
                                                                     maxBatch: configuration.messageBatching.maxBatch))
        let events = try EventService(store: store, settings: configuration.events,
                                      serviceEndpoint: configuration.serviceEndpoint, log: log)
        self.events = events
        let chat = ChatEnvironment(store: store, log: log, limits: configuration.limits, cipherSuites: configuration.chatCipherSuites,
                                   serviceEndpoint: configuration.serviceEndpoint, blobs: blobs,
                                   relationships: RelationshipResolver(didResolver: resolver, settings: configuration.chatRelationships, log: log),
                                   typing: configuration.chatTyping, maxPushDevices: configuration.push.maxDevicesPerUser,
                                   batching: configuration.messageBatching, clock: clock)
        let chatHub = ChatEventHub(store: store, workers: events.workers, log: log)
        self.chatHub = chatHub
        let methods = DeliveryServiceMethods.all(environment)
            + [GetSubscriptionTicket.method(environment, events: events), SubscribeConvoEvents.method()]
            + ChatMethods.all(chat) + [SubscribeChatEvents.method()]
            + [RegisterDeviceToken.method(environment, rules: PushRegistrationRules(settings: configuration.push),
                                          maxDevices: configuration.push.maxDevicesPerUser),
               UnregisterDeviceToken.method(environment)]
        let metrics = ServiceMetrics(nsids: methods.map(\.nsid))
        let node = UUID().uuidString
        push = try PushServices.dispatcher(settings: configuration.push, store: store, contentSources: [ChatPushContent(store: store)],
                                           metrics: metrics.push, log: log, node: node)
        if let push {
            events.hub.onNews { push.nudge() }
            let presence = PushPresence(store: store, node: node, log: log)
            events.hub.mirrorPresence(to: presence)
            chatHub.mirror(to: presence) { push.nudge() }
            pushPresence = presence
        } else {
            pushPresence = nil
        }
        let rateLimits = RateLimits(configuration: configuration.rateLimits)
        let serviceAuth = ServiceAuthChecks(verifier: verifier, resolver: resolver)
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
            serviceAuth: serviceAuth,
            log: log, rateLimits: rateLimits, metrics: metrics,
            webSocketRoutes: [
                EventService.subscribeNSID: { request, authenticate in try events.upgrade(request, authenticate: authenticate) },
                ChatMethods.subscribeEvents: { request, _ in try SubscribeChatEvents.upgrade(request, hub: chatHub) },
            ],
            uploadLimits: (configuration.limits.maxUploadsPerUser, configuration.limits.maxUploads))
        var streams: [StreamListener] = []
        if let port = configuration.mqttPort {
            let pending = RelayPending()
            let settings = configuration.relay
            let workers = settings.effectiveWorkerThreads(workerThreads: configuration.http.workerThreads,
                                                          poolSize: configuration.database.poolSize)
            let context = RelayContext(env: environment, source: events.source, hub: events.hub,
                                       workers: EventWorkers(threads: workers, name: "relay"),
                                       node: node, pending: pending, settings: settings, rateLimits: rateLimits, metrics: metrics)
            var listener = MQTTServerConfiguration()
            listener.maximumUnsentBytes = settings.maxUnsentBytes
            listener.maximumTopicFilters = settings.maxFiltersPerSubscribe
            let broker = RelayBroker(
                configuration: listener, context: context,
                authenticator: RelayAuthenticator(checks: serviceAuth, store: store, rateLimits: rateLimits, metrics: metrics,
                                                  maxClientsPerDID: settings.maxClientsPerDID),
                publisher: RelayPublisher(env: environment, rateLimits: rateLimits, metrics: metrics, pending: pending))
            relay = broker
            // TLS with the same certificate as HTTPS when TLS_CERT_FILE / TLS_KEY_FILE are set.
            streams.append(StreamListener(port: port, tls: configuration.http.tls != nil, service: MQTTListener(broker: broker)))
        } else {
            relay = nil
        }
        let server = HTTPServer(configuration: configuration.http, responder: router, streams: streams)
        self.server = server
        self.router = router
        let database = self.database
        let monitor = self.monitor
        let hub = events.hub
        metrics.setGauges(ServiceMetrics.Gauges(
            httpConnections: { server.connectionCount },
            databasePool: { database.poolStats },
            rateLimitKeys: { rateLimits.keyCount },
            databaseUp: { monitor.isDatabaseHealthy },
            eventFanoutPending: { hub.pendingCount },
            connections: [("pool", database.connections), ("listener", hub.listenerConnections)]))
    }

    public func start() throws {
        if configuration.serviceDID == ServiceConfiguration.developmentServiceDID {
            log.warning("running as the development service DID (make run without SERVICE_DID): set SERVICE_DID in production",
                        ["service_did": configuration.serviceDID])
        }
        relay?.start()
        try server.start()
        monitor.start()
        maintenance.start()
        retention.start()
        events.start(databaseURL: configuration.database.url)
        chatHub.start(databaseURL: configuration.database.url)
        pushPresence?.start()
        push?.start()
        log.info("listening", ["host": configuration.http.host, "port": String(server.port)])
        if relay != nil { log.info("mqtt listening", ["host": configuration.http.host, "port": String(server.streamPort(0))]) }
    }

    /// One pass of the maintenance job now (tests: what expired by the clock is removed).
    func runMaintenance() { maintenance.runOnce() }

    /// The MQTT listener's bound port (MQTT_PORT, or the ephemeral one for 0); nil when it is off.
    public var mqttPort: Int? { relay == nil ? nil : server.streamPort(0) }

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

    /// Requests whose body is streaming to a worker now (`MAX_UPLOADS`).
    public var uploadsInProgress: Int { router.uploadsInProgress }

    /// Stops accepting, lets in-flight requests finish within `SHUTDOWN_GRACE_PERIOD`, stops the
    /// background jobs, then releases the database. Safe to call more than once.
    public func shutdown() {
        log.info("shutting down", ["grace_s": String(configuration.http.shutdownGracePeriod)])
        server.shutdown()
        relay?.stop()
        monitor.stop()
        maintenance.stop()
        retention.stop()
        chatHub.stop()
        push?.stop()
        events.stop()
        pushPresence?.stop()
        database.close()
        log.info("stopped")
    }
}
