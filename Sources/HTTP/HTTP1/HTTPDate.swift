#if canImport(Glibc)
import Glibc
#endif

/// The Date field value (IMF-fixdate, RFC 9110 §5.6.7), formatted once per second per I/O thread.
final class HTTPDateCache {
    private var second = -1
    private var cached: [UInt8] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            cached = Self.format(now)
        }
        return cached
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT"
    static func format(_ seconds: Int) -> [UInt8] {
        var clock = time_t(seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: days[Int(parts.tm_wday) % 7].utf8)
        out.append(contentsOf: ", ".utf8)
        appendTwoDigits(Int(parts.tm_mday), to: &out)
        out.append(ASCII.space)
        out.append(contentsOf: months[Int(parts.tm_mon) % 12].utf8)
        out.append(ASCII.space)
        HTTPResponseWriter.appendDecimal(Int(parts.tm_year) + 1900, to: &out)
        out.append(ASCII.space)
        appendTwoDigits(Int(parts.tm_hour), to: &out)
        out.append(ASCII.colon)
        appendTwoDigits(Int(parts.tm_min), to: &out)
        out.append(ASCII.colon)
        appendTwoDigits(Int(parts.tm_sec), to: &out)
        out.append(contentsOf: " GMT".utf8)
        return out
    }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(ASCII.zero + UInt8(value / 10 % 10))
        out.append(ASCII.zero + UInt8(value % 10))
    }
}
