/// Rate limits from the environment (README, Configuration).
public struct RateLimitConfiguration: Sendable {
    /// `RATE_LIMIT_ENABLED=0` turns every limit off.
    public var enabled = true
    /// Per client IP, checked before authentication; nil = no IP limit.
    public var perIP: RateLimitRule? = RateLimitConfiguration.defaultIPRule
    /// Per caller DID and class, checked after authentication; a missing class is unlimited.
    public var perDID: [RateLimitClass: RateLimitRule] =
        Dictionary(uniqueKeysWithValues: RateLimitClass.allCases.map { ($0, $0.defaultRule) })
    public var trustedProxies = TrustedProxies()

    public static let defaultIPRule = RateLimitRule(ratePerSecond: 100, burst: 500)

    public init() {}

    public enum ConfigurationError: Error, Equatable {
        case invalid(variable: String, value: String)
    }

    /// Reads RATE_LIMIT_ENABLED, RATE_LIMIT_IP, RATE_LIMIT_SEND/READ/KEY_PACKAGES/MEMBERSHIP
    /// (`rate,burst` or `off`) and TRUSTED_PROXIES; what is absent keeps its value in `base`.
    public init(environment env: [String: String], base: RateLimitConfiguration = RateLimitConfiguration())
        throws(ConfigurationError) {
        self = base
        if let value = env["RATE_LIMIT_ENABLED"], !value.isEmpty {
            switch value.lowercased() {
            case "1", "true", "yes", "on": enabled = true
            case "0", "false", "no", "off": enabled = false
            default: throw .invalid(variable: "RATE_LIMIT_ENABLED", value: value)
            }
        }
        func rule(_ variable: String, current: RateLimitRule?) throws(ConfigurationError) -> RateLimitRule? {
            guard let value = env[variable], !value.isEmpty else { return current }
            if value.lowercased() == "off" { return nil }
            guard let rule = RateLimitRule(parsing: value) else { throw .invalid(variable: variable, value: value) }
            return rule
        }
        perIP = try rule("RATE_LIMIT_IP", current: perIP)
        for kind in RateLimitClass.allCases {
            perDID[kind] = try rule(kind.variable, current: perDID[kind])
        }
        if let value = env["TRUSTED_PROXIES"] {
            do {
                trustedProxies = try TrustedProxies(parsing: value)
            } catch {
                throw .invalid(variable: "TRUSTED_PROXIES", value: value)
            }
        }
    }
}
