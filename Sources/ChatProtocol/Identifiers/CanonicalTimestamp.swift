import Foundation

/// The contract's `#canonicalDatetime`: exactly `YYYY-MM-DDTHH:MM:SS.sssZ` in UTC, 24 characters,
/// a real calendar date; offsets, other fraction lengths, lowercase letters and leap seconds are
/// refused. Held as milliseconds since the Unix epoch.
public struct CanonicalTimestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }

    public init(_ date: Date) {
        millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(b[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let millis = number(20..<23),
              (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        millisecondsSince1970 = ((Int64(days) * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millis)
    }

    public var secondsSince1970: Int64 { millisecondsSince1970 >= 0 ? millisecondsSince1970 / 1000 : (millisecondsSince1970 - 999) / 1000 }

    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    public func adding(seconds: Int64) -> CanonicalTimestamp {
        CanonicalTimestamp(millisecondsSince1970: millisecondsSince1970 + seconds * 1000)
    }

    public var description: String {
        var millis = millisecondsSince1970
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        millis -= days * 86_400_000
        let (year, month, day) = Self.civil(fromDays: Int(days))
        let hour = millis / 3_600_000, minute = millis / 60_000 % 60, second = millis / 1000 % 60, fraction = millis % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(fraction, 3))Z"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.millisecondsSince1970 < rhs.millisecondsSince1970 }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil and civil_from_days (proleptic Gregorian).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
