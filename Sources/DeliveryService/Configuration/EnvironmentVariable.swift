import Foundation

/// One environment variable the service reads: its name, where it is documented, its default, what it
/// means, what it guards against, and how it is read into the configuration. The declarations
/// (`ServiceConfiguration.environmentVariables`, one file per group) are the only place a variable
/// is named: `fromEnvironment` reads them, `catbird-mls-server --help` prints them, and
/// docs/configuration.md is generated from them (scripts/configuration-doc.sh) and checked against
/// them by ConfigurationTests.
public struct EnvironmentVariable: Sendable {
    public let name: String
    public let group: EnvironmentGroup
    public let defaultValue: EnvironmentDefault
    /// What the value means and its format (plain text; `backticks` for names and values).
    public let meaning: String
    /// The attack or failure the variable is there to stop, or what going wrong with it costs.
    public let guards: String
    /// Never echoed in a refusal (connection strings, tokens, keys).
    public let secret: Bool
    /// A usable value other than the default: ConfigurationTests sets each one and requires the
    /// configuration to change, so a declared variable that is never read fails the tests.
    let example: String
    /// Puts the value (or the default, when unset) into the configuration, or refuses it.
    let read: @Sendable (EnvironmentValue, inout ServiceConfiguration) throws(ConfigurationError) -> Void

    init(_ name: String, _ group: EnvironmentGroup, default defaultValue: EnvironmentDefault, secret: Bool = false,
         example: String, meaning: String, guards: String,
         read: @escaping @Sendable (EnvironmentValue, inout ServiceConfiguration) throws(ConfigurationError) -> Void) {
        self.name = name
        self.group = group
        self.defaultValue = defaultValue
        self.secret = secret
        self.example = example
        self.meaning = meaning
        self.guards = guards
        self.read = read
    }
}

/// What a variable is when it is not set (or set to the empty string).
public enum EnvironmentDefault: Sendable, Equatable {
    /// This value, exactly as one would set it: setting it changes nothing (ConfigurationTests).
    case value(String)
    /// Off, or nothing configured: what that means.
    case none(String)
    /// Computed from other settings, as described.
    case derived(String)
    /// No default: unset, the service refuses to start with this problem.
    case required(problem: String)

    /// As the docs and `--help` show it (`backticks` around a literal value).
    public var text: String {
        switch self {
        case .value(let value): "`\(value)`"
        case .none(let meaning): "none: \(meaning)"
        case .derived(let rule): rule
        case .required: "required"
        }
    }
}

/// The value of one variable, read through the checks every variable shares; each refusal names
/// the variable (and hides a secret's value).
public struct EnvironmentValue {
    let name: String
    let secret: Bool
    private let environment: [String: String]

    init(name: String, secret: Bool, environment: [String: String]) {
        self.name = name
        self.secret = secret
        self.environment = environment
    }

    /// The value, or nil when the variable is unset or empty.
    var string: String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// Another declared variable's value, for a variable that is half of a pair (TLS_CERT_FILE and
    /// TLS_KEY_FILE) or derives its default from another (SERVICE_ENDPOINT, MAX_UPLOADS).
    func companion(_ other: String) -> String? {
        precondition(ServiceConfiguration.environmentVariables.contains { $0.name == other }, "\(other) is not declared")
        guard let value = environment[other], !value.isEmpty else { return nil }
        return value
    }

    /// A refusal of this variable's value (the value itself left out when secret or unset).
    func refusal(_ problem: String) -> ConfigurationError {
        ConfigurationError(name, value: secret ? nil : string, problem)
    }

    func integer(in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let text = string else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw refusal("expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A duration in seconds: more than 0, at most a day.
    func seconds() throws(ConfigurationError) -> Double? {
        guard let text = string else { return nil }
        guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
            throw refusal("expected seconds, more than 0 and at most 86400")
        }
        return value
    }

    func flag() throws(ConfigurationError) -> Bool? {
        guard let text = string else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw refusal("expected 1 or 0 (true/false, yes/no, on/off)")
        }
    }

    /// An absolute http(s) URL with a host.
    func httpURL() throws(ConfigurationError) -> String? {
        guard let text = string else { return nil }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw refusal("expected an http:// or https:// URL")
        }
        return text
    }

    /// `rate,burst` or `off` (nil: no limit), handed to `apply` when the variable is set.
    func rateLimitRule(_ apply: (RateLimitRule?) -> Void) throws(ConfigurationError) {
        guard let text = string else { return }
        if text.lowercased() == "off" { return apply(nil) }
        guard let rule = RateLimitRule(parsing: text) else {
            throw refusal("expected rate,burst (per second, e.g. 20,100) or off")
        }
        apply(rule)
    }
}
