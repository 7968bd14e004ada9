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
    public var environment: [String: String] = [:]

    public init() {}

    public enum ConfigurationError: Error, CustomStringConvertible {
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
        return config
    }
}
