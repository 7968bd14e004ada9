import Foundation

/// The one place that reads the environment (docs/configuration.md). An empty variable counts as
/// unset; a value that is set but unusable, or half of a pair, refuses the start with a one-line
/// `ConfigurationError` naming the variable. Secrets (DATABASE_URL, METRICS_TOKEN,
/// SUBSCRIPTION_TICKET_KEY) are never echoed.
extension ServiceConfiguration {
    /// Every variable the service reads, in the order it reads them: one declaration each, grouped by
    /// file (Sources/DeliveryService/Configuration). To add a variable, add its declaration to its
    /// group's list, then run scripts/configuration-doc.sh to regenerate docs/configuration.md.
    public static let environmentVariables: [EnvironmentVariable] =
        networkVariables + databaseVariables + identityVariables + rateLimitVariables + limitVariables
            + retentionVariables + eventVariables + mqttVariables + chatVariables + pushVariables + operationsVariables

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError) -> ServiceConfiguration {
        var config = ServiceConfiguration()
        for variable in environmentVariables {
            try variable.read(EnvironmentValue(name: variable.name, secret: variable.secret, environment: environment), &config)
        }
        // Last, so that a malformed value elsewhere is named even where no database is configured.
        // SERVICE_DID has no default: a service that silently took a shared placeholder would accept
        // tokens minted for any other service run the same way. `make run` sets the development one.
        for variable in environmentVariables {
            guard case .required(let problem) = variable.defaultValue, (environment[variable.name] ?? "").isEmpty else { continue }
            throw ConfigurationError(variable.name, value: nil, problem)
        }
        return config
    }

    /// What `make run` sets SERVICE_DID to when it is not configured; the service says so in its log.
    public static let developmentServiceDID = "did:web:localhost"
}
