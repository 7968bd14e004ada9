import Foundation

/// Everything the service reads from the environment (README, "Configuration").
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databaseURL = ""
    public var databasePoolSize = 16
    public var serviceDID = "did:web:localhost"
    public var serviceEndpoint = "http://127.0.0.1:8080"
    public var migrationsDirectory = "migrations"
    public var logLevel = Log.Level.info
    public var workerThreads = 32
    public var limits = ServiceLimits()
    public var rateLimits = RateLimitConfiguration()
    /// `METRICS_TOKEN`: when set, `/metrics` wants `Authorization: Bearer <token>`.
    public var metricsToken: String?
    /// Slowloris defence and connection limits of the HTTP server, in seconds and connections.
    public var headerReadTimeout = 10.0
    public var bodyReadTimeout = 30.0
    public var idleTimeout = 60.0
    public var maxConnections = 4096
    /// How long a SIGTERM lets in-flight requests finish.
    public var shutdownGracePeriod = 10.0
    /// `BLOB_DIR`: where attachment files are kept, relative to the working directory unless absolute.
    public var blobDirectory = ".data/blobs"
    public var environment: [String: String] = [:]

    public init() {}

    public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
        case invalid(String, String)
        public var description: String {
            switch self { case .invalid(let name, let value): return "invalid \(name)=\(value)" }
        }
    }

    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> ServiceConfiguration {
        var config = ServiceConfiguration()
        config.environment = env
        if let host = env["HOST"], !host.isEmpty { config.host = host }
        if let port = env["PORT"], !port.isEmpty {
            guard let value = Int(port), (0...65535).contains(value) else { throw ConfigurationError.invalid("PORT", port) }
            config.port = value
        }
        config.databaseURL = env["DATABASE_URL"] ?? ""
        if let size = env["DATABASE_POOL_SIZE"], !size.isEmpty {
            guard let value = Int(size), value > 0 else { throw ConfigurationError.invalid("DATABASE_POOL_SIZE", size) }
            config.databasePoolSize = value
        }
        if let workers = env["WORKER_THREADS"], !workers.isEmpty {
            guard let value = Int(workers), value > 0 else { throw ConfigurationError.invalid("WORKER_THREADS", workers) }
            config.workerThreads = value
        }
        if let did = env["SERVICE_DID"], !did.isEmpty { config.serviceDID = did }
        config.serviceEndpoint = env["SERVICE_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "http://\(config.host):\(config.port)"
        if let dir = env["MIGRATIONS_DIR"], !dir.isEmpty { config.migrationsDirectory = dir }
        if let level = env["LOG_LEVEL"], !level.isEmpty {
            guard let value = Log.Level(name: level) else { throw ConfigurationError.invalid("LOG_LEVEL", level) }
            config.logLevel = value
        }
        try config.applyOperationalSettings(from: env)
        return config
    }

    /// Rate limits, metrics token and HTTP timeouts from `env`; a variable that is absent keeps the
    /// current value. `DeliveryServiceApp` applies `environment` once more, so a configuration built
    /// in code can set these through its environment too.
    public mutating func applyOperationalSettings(from env: [String: String]) throws(ConfigurationError) {
        do {
            rateLimits = try RateLimitConfiguration(environment: env, base: rateLimits)
        } catch {
            guard case .invalid(let variable, let value) = error else { throw .invalid("RATE_LIMIT", "") }
            throw .invalid(variable, value)
        }
        if let token = env["METRICS_TOKEN"], !token.isEmpty { metricsToken = token }
        if let directory = env["BLOB_DIR"], !directory.isEmpty { blobDirectory = directory }
        func seconds(_ name: String) throws(ConfigurationError) -> Double? {
            guard let text = env[name], !text.isEmpty else { return nil }
            guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else { throw .invalid(name, text) }
            return value
        }
        if let value = try seconds("HEADER_READ_TIMEOUT") { headerReadTimeout = value }
        if let value = try seconds("BODY_READ_TIMEOUT") { bodyReadTimeout = value }
        if let value = try seconds("IDLE_TIMEOUT") { idleTimeout = value }
        if let value = try seconds("SHUTDOWN_GRACE_PERIOD") { shutdownGracePeriod = value }
        if let text = env["MAX_CONNECTIONS"], !text.isEmpty {
            guard let value = Int(text), value > 0 else { throw .invalid("MAX_CONNECTIONS", text) }
            maxConnections = value
        }
    }
}
