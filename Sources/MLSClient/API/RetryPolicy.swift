import Foundation
import HTTP

/// When and how long to wait before trying a call again: exponential backoff with jitter on
/// network failures, 5xx and 429 (honouring Retry-After); never on any other 4xx, which a retry
/// cannot fix.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included; 1 disables retries.
    public var maxAttempts: Int
    /// Backoff before the second attempt; doubles for each one after.
    public var baseDelay: Double
    public var maxDelay: Double
    /// A Retry-After longer than this is not waited out: the error is returned at once.
    public var maxRetryAfter: Double
    /// A uniform random value in 0..<1; the wait is `backoff × (0.5 + 0.5 × jitter())`.
    public var jitter: @Sendable () -> Double
    /// How a wait is done; tests substitute a recorder.
    public var sleep: @Sendable (Double) async -> Void

    public init(maxAttempts: Int = 4, baseDelay: Double = 0.25, maxDelay: Double = 8, maxRetryAfter: Double = 60,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                sleep: @escaping @Sendable (Double) async -> Void = RetryPolicy.taskSleep) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
        self.sleep = sleep
    }

    public static let `default` = RetryPolicy()
    public static let none = RetryPolicy(maxAttempts: 1)

    public static let taskSleep: @Sendable (Double) async -> Void = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }

    /// Whether the failure may succeed on another try.
    public static func isRetryable(_ error: MLSAPIError) -> Bool {
        switch error {
        case .http(let status, _, _):
            return status == 429 || (500...599).contains(status)
        case .network(let cause):
            switch cause {
            case .connectFailed, .timeout, .io, .malformedResponse, .hostNotFound: return true
            case .invalidURL, .forbiddenAddress, .tls, .redirectRefused, .responseTooLarge: return false
            }
        default:
            return false
        }
    }

    /// The wait before attempt `attempt + 1` after `error` on attempt `attempt` (1-based), or nil
    /// when the error is final. `retryAfter` is the server's Retry-After in seconds, if it sent one.
    public func delay(afterAttempt attempt: Int, error: MLSAPIError, retryAfter: Double?) -> Double? {
        guard attempt < maxAttempts, Self.isRetryable(error) else { return nil }
        // RFC 9110 §10.2.3: the server says how long; waiting less would only be refused again.
        if let retryAfter {
            return retryAfter <= maxRetryAfter ? max(0, retryAfter) : nil
        }
        let exponential = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
        return exponential * (0.5 + 0.5 * min(max(jitter(), 0), 1))
    }

    /// Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); nil when absent or malformed.
    public static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? Double(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
