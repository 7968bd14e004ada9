import Basics
@testable import DeliveryService
import Foundation
import XCTest

/// `Timestamp.rfc3339` against Foundation's ISO 8601 formatter (UTC, milliseconds), from 1900 to
/// 2100: a `Date` (seconds from 2001 in a Double) farther than 2^32 s from 2001 no longer holds
/// every microsecond, and the two round its last millisecond differently; before the Gregorian
/// reform (1582) Foundation also counts Julian days, RFC 3339 and `gmtime` proleptic Gregorian ones.
final class TimestampTests: XCTestCase {
    private let reference: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    private func assertFormats(_ millis: Int64, line: UInt = #line) {
        let date = Date(timeIntervalSince1970: Double(millis) / 1000)
        XCTAssertEqual(Timestamp.rfc3339(date), reference.string(from: date), "ms \(millis)", line: line)
    }

    func test_rfc3339_matchesFoundation_onEdgesAndRandomInstants() {
        let day: Int64 = 86_400_000
        // The epoch, a leap day, the turn of a century that is not a leap year and of one that is,
        // the last millisecond of a year, before 1970, and the edges of four-digit years.
        let edges: [Int64] = [0, 1, 999, 1000, 59_999, day - 1, day,
                              951_782_400_000, 951_868_799_999, 4_107_542_400_000, 4_102_444_799_999,
                              1_795_651_200_000, -1, -999, -1000, -day, -day - 1, -2_208_988_800_000,
                              4_102_444_800_000]
        for millis in edges { assertFormats(millis) }
        // The same 2,000 instants every run: a seeded generator, so a failure can be run again.
        var generator = SplitMix64(seed: 0x5EED_1970)
        for _ in 0..<2000 {
            assertFormats(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator))
        }
    }

    func test_rfc3339_beforeTheReform_isProlepticGregorian() {
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: -62_167_219_200)), "0000-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: -12_219_292_800)), "1582-10-15T00:00:00.000Z")
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: -12_219_292_800.001)), "1582-10-14T23:59:59.999Z")
    }

    func test_rfc3339_keepsTheMillisecondAFloatingPointProductWouldLose() {
        // 0.999 s and 1.001 s are not exact in binary; their milliseconds must survive.
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: 0.999)), "1970-01-01T00:00:00.999Z")
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: 1_795_651_200.001)), "2026-11-26T00:00:00.001Z")
    }

    func test_rfc3339_isAlwaysTwentyFourCharactersInsideFourDigitYears() {
        for millis: Int64 in [-62_167_219_200_000, 0, 1_795_651_234_567, 253_402_300_799_999] {
            XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: Double(millis) / 1000)).utf8.count, 24)
        }
    }

    func test_rfc3339_farDates_insideFourDigitYears() {
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: 253_402_300_799)), "9999-12-31T23:59:59.000Z")
        XCTAssertEqual(Timestamp.rfc3339(Date(timeIntervalSince1970: 32_503_680_000)), "3000-01-01T00:00:00.000Z")
    }

    func test_rfc3339_outsideFourDigitYears_takesTheGeneralPath() {
        let date = Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01
        XCTAssertEqual(Timestamp.rfc3339(date), "10000-01-01T00:00:00.000Z")
    }
}
