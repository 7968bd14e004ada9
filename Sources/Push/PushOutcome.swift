import Foundation

/// What became of one push at its push service; the worker decides from it what to do with the
/// outbox row. `reason` is a short identifier for logs and metrics labels, never a token or payload.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted (2xx).
    case delivered
    /// The device's token or subscription is gone for good (APNs 410 or BadDeviceToken, FCM
    /// UNREGISTERED, Web Push 404 or 410): forget the device.
    case invalidToken(reason: String)
    /// Worth another try later: 429, 5xx, a network failure or a timeout; `retryAfter` seconds when
    /// the service said (Retry-After).
    case retry(reason: String, retryAfter: Double?)
    /// Refused for a reason another try would not change (a payload or credential the service
    /// rejects): dropped and counted.
    case rejected(reason: String)

    public var reason: String {
        switch self {
        case .delivered: "delivered"
        case .invalidToken(let reason), .retry(let reason, _), .rejected(let reason): reason
        }
    }

    /// Retry-After (RFC 9110 §10.2.3) in seconds: delay-seconds, or an HTTP-date relative to `now`.
    /// Nil when absent or unreadable; at most a day.
    public static func retryAfter(_ value: String?, now: Double) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? Double(min(seconds, 86_400)) : nil }
        guard let date = HTTPDateParser.parse(value) else { return nil }
        return min(86_400, max(0, date - now))
    }

    /// A label built from an outside text (a service's reason): identifier characters only, at most 40.
    static func label(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        let label = String(String.UnicodeScalarView(kept.prefix(40)))
        return label.isEmpty ? "unknown" : label
    }
}

/// IMF-fixdate (RFC 9110 §5.6.7), the form a Retry-After date takes: `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDateParser {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970, or nil when `text` is not an IMF-fixdate.
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), (1...31).contains(day), let month = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), (1970...9999).contains(year) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), March-based years.
        let y = month < 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (month + 10) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }
}
