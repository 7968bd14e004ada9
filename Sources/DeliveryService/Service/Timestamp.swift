import Foundation

/// RFC 3339 UTC timestamps with milliseconds (`2026-11-22T12:00:00.000Z`), as API.md fixes them.
public enum Timestamp {
    /// Written digit by digit from the day count (H. Hinnant's `civil_from_days`): every answer
    /// that carries a time formats one, some on the path of every sent message, and going through
    /// `gmtime_r` and string interpolation cost about 7,500 instructions each. Times before the year
    /// 0 or after 9999 take that general path.
    public static func rfc3339(_ date: Date) -> String {
        // Whole seconds, then the fraction (exact in binary floating point) to the nearest
        // microsecond (what PostgreSQL and the clock give), then down to the millisecond: 0.999 s
        // is 998.99999… ms as a product.
        let time = date.timeIntervalSince1970
        let whole = time.rounded(.down)
        var seconds = Int64(whole)
        var micros = Int64(((time - whole) * 1_000_000).rounded())
        if micros == 1_000_000 {
            seconds += 1
            micros = 0
        }
        let milli = micros / 1000
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else { return general(seconds: seconds, milli: milli) }
        return String(unsafeUninitializedCapacity: 24) { out in
            var position = 0
            func put(_ value: Int64, _ width: Int, then separator: UInt8) {
                var rest = value
                for digit in stride(from: width - 1, through: 0, by: -1) {
                    out[position + digit] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                out[position + width] = separator
                position += width + 1
            }
            put(year, 4, then: UInt8(ascii: "-"))
            put(month, 2, then: UInt8(ascii: "-"))
            put(day, 2, then: UInt8(ascii: "T"))
            put(secondOfDay / 3600, 2, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, 2, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, 2, then: UInt8(ascii: "."))
            put(milli, 3, then: UInt8(ascii: "Z"))
            return position
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Any year, through the C library.
    private static func general(seconds: Int64, milli: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int64(parts.tm_year) + 1900, 4))-\(pad(Int64(parts.tm_mon) + 1, 2))-\(pad(Int64(parts.tm_mday), 2))T"
            + "\(pad(Int64(parts.tm_hour), 2)):\(pad(Int64(parts.tm_min), 2)):\(pad(Int64(parts.tm_sec), 2)).\(pad(milli, 3))Z"
    }

    /// Parses RFC 3339 with optional fraction and `Z` or a numeric offset; nil when malformed.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
