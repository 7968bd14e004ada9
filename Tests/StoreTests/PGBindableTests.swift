import Foundation
import XCTest
@testable import Store

/// Every bindable type goes to the server in binary (or text) form and comes back unchanged.
final class PGBindableTests: DatabaseTestCase {
    private func echo(_ value: (any PGBindable)?, as sqlType: String) throws -> PGRow {
        let rows = try db.query("SELECT $1::\(sqlType) AS v", [value])
        XCTAssertEqual(rows.count, 1)
        return rows[0]
    }

    func test_integers_roundTripIncludingExtremes() throws {
        for value in [Int64.min, -1, 0, 1, Int64.max] {
            XCTAssertEqual(try echo(value, as: "int8").int64("v"), value)
        }
        for value in [Int.min, 0, Int.max] {
            XCTAssertEqual(try echo(value, as: "int8").int("v"), value)
        }
        for value in [Int32.min, -7, Int32.max] {
            XCTAssertEqual(try echo(value, as: "int4").int32("v"), value)
        }
        for value in [Int16.min, 300, Int16.max] {
            XCTAssertEqual(try echo(value, as: "int2").int16("v"), value)
        }
        // Narrower columns widen to Int64.
        XCTAssertEqual(try echo(Int16(-5), as: "int2").int64("v"), -5)
    }

    func test_boolAndDouble_roundTrip() throws {
        XCTAssertEqual(try echo(true, as: "bool").bool("v"), true)
        XCTAssertEqual(try echo(false, as: "bool").bool("v"), false)
        for value in [0.0, -0.0, 1.5, -2.25e300, .infinity, -.infinity, .leastNonzeroMagnitude] {
            let back = try echo(value, as: "float8").double("v")
            XCTAssertEqual(back, value)
            XCTAssertEqual(back.sign, value.sign)
        }
        XCTAssertTrue(try echo(Double.nan, as: "float8").double("v").isNaN)
    }

    func test_strings_roundTripUnicodeAndEmpty() throws {
        for value in ["", "plain", "héllo wörld", "日本語テキスト", "emoji 🧑‍🚀🌍", "quote ' and \\ backslash", "line\nbreak"] {
            XCTAssertEqual(try echo(value, as: "text").string("v"), value)
        }
        XCTAssertEqual(try db.query("SELECT length($1::text) AS n", ["🧑‍🚀"])[0].int("n"), 3)
    }

    func test_stringWithNUL_isRejectedNotTruncated() throws {
        XCTAssertEqual(storeError { try echo("a\u{0}b", as: "text") },
                       .queryFailed(sqlState: "22021", message: "text parameter contains a NUL byte"))
    }

    func test_bytea_roundTripsEmptyEveryByteAndOneMebibyte() throws {
        XCTAssertEqual(try echo([UInt8](), as: "bytea").bytes("v"), [])
        let everyByte = (0...255).map { UInt8($0) }
        XCTAssertEqual(try echo(everyByte, as: "bytea").bytes("v"), everyByte)
        var generator = SystemRandomNumberGenerator()
        let large = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let row = try db.query("SELECT $1::bytea AS v, length($1::bytea) AS n", [large])[0]
        XCTAssertEqual(try row.int("n"), 1 << 20)
        XCTAssertEqual(try row.bytes("v"), large)
        XCTAssertEqual(try echo(Data(everyByte), as: "bytea").data("v"), Data(everyByte))
    }

    func test_date_roundTripsToTheMicrosecond() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let back = try echo(date, as: "timestamptz").date("v")
        XCTAssertEqual(back.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        let old = Date(timeIntervalSince1970: -1_000_000_000.5)
        XCTAssertEqual(try echo(old, as: "timestamptz").date("v").timeIntervalSince1970,
                       old.timeIntervalSince1970, accuracy: 1e-6)
        // The server agrees on the instant, not just the round trip.
        let text = try db.query("SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS t",
                                [date])[0].string("t")
        XCTAssertEqual(text, "2023-11-14 22:13:20.123456")
        XCTAssertEqual(try db.query("SELECT 'infinity'::timestamptz AS v")[0].date("v"), .distantFuture)
        XCTAssertEqual(try db.query("SELECT '2000-01-02'::date AS v")[0].date("v"),
                       Date(timeIntervalSince1970: 946_684_800 + 86_400))
    }

    func test_uuid_roundTripsAndMatchesServerText() throws {
        let uuid = UUID()
        let row = try db.query("SELECT $1::uuid AS v, $1::uuid::text AS t", [uuid])[0]
        XCTAssertEqual(try row.uuid("v"), uuid)
        XCTAssertEqual(try row.string("t"), uuid.uuidString.lowercased())
        XCTAssertEqual(try row.string("v"), uuid.uuidString.lowercased())
    }

    func test_everyType_storesAndReadsBackThroughATable_withNulls() throws {
        try db.execute("""
            CREATE TABLE everything (
                i8 bigint, i4 integer, i2 smallint, b boolean, t text, v varchar(20), by bytea,
                ts timestamptz, f float8, u uuid, j jsonb)
            """)
        let date = Date(timeIntervalSince1970: 1_234_567_890.5)
        let uuid = UUID()
        let inserted = try db.execute(
            "INSERT INTO everything VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            [Int64(42), Int32(-3), Int16(7), true, "ünïcödé", "short", [UInt8]([0, 1, 255]), date, 3.5, uuid,
             #"{"k": [1, 2]}"#])
        XCTAssertEqual(inserted, 1)
        try db.execute("INSERT INTO everything VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                       Array(repeating: nil, count: 11))
        let rows = try db.query("SELECT * FROM everything ORDER BY i8 NULLS LAST")
        XCTAssertEqual(rows.count, 2)
        let full = rows[0]
        XCTAssertEqual(try full.int64("i8"), 42)
        XCTAssertEqual(try full.int32("i4"), -3)
        XCTAssertEqual(try full.int16("i2"), 7)
        XCTAssertEqual(try full.bool("b"), true)
        XCTAssertEqual(try full.string("t"), "ünïcödé")
        XCTAssertEqual(try full.string("v"), "short")
        XCTAssertEqual(try full.bytes("by"), [0, 1, 255])
        XCTAssertEqual(try full.date("ts"), date)
        XCTAssertEqual(try full.double("f"), 3.5)
        XCTAssertEqual(try full.uuid("u"), uuid)
        XCTAssertEqual(try full.string("j"), #"{"k": [1, 2]}"#)

        let empty = rows[1]
        XCTAssertNil(try empty.optionalInt64("i8"))
        XCTAssertNil(try empty.optionalInt32("i4"))
        XCTAssertNil(try empty.optionalInt16("i2"))
        XCTAssertNil(try empty.optionalBool("b"))
        XCTAssertNil(try empty.optionalString("t"))
        XCTAssertNil(try empty.optionalBytes("by"))
        XCTAssertNil(try empty.optionalDate("ts"))
        XCTAssertNil(try empty.optionalDouble("f"))
        XCTAssertNil(try empty.optionalUUID("u"))
        XCTAssertTrue(try empty.isNull("j"))
        XCTAssertEqual(try full.optionalInt64("i8"), 42)
        XCTAssertEqual(storeError { try empty.int64("i8") }, .decoding("column \"i8\" (int8) is NULL, expected Int64"))
    }

    func test_stringParameter_letsTheServerInferTheColumnType() throws {
        try db.execute("CREATE TABLE typed (u uuid, j jsonb, n numeric)")
        try db.execute("INSERT INTO typed VALUES ($1, $2, $3)",
                       ["6ba7b810-9dad-11d1-80b4-00c04fd430c8", "[true]", "12.50"])
        let row = try db.query("SELECT u, j, n FROM typed")[0]
        XCTAssertEqual(try row.uuid("u"), UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
        XCTAssertEqual(try row.string("j"), "[true]")
        XCTAssertEqual(try row.string("n"), "12.50")
    }

    func test_arrays_bindAndDecode() throws {
        try db.execute("CREATE TABLE members (id bigint, did text)")
        for (id, did) in [(1, "did:plc:a"), (2, "did:plc:b"), (3, "did:plc:c")] {
            try db.execute("INSERT INTO members VALUES ($1, $2)", [id, did])
        }
        let picked = try db.query("SELECT id FROM members WHERE did = ANY($1) ORDER BY id",
                                  [PGArray(["did:plc:a", "did:plc:c", "did:plc:zzz"])])
        XCTAssertEqual(try picked.map { try $0.int("id") }, [1, 3])
        let none = try db.query("SELECT count(*) AS n FROM members WHERE id = ANY($1)", [PGArray([Int64]())])
        XCTAssertEqual(try none[0].int("n"), 0)

        let row = try db.query("SELECT $1::text[] AS s, $2::bigint[] AS i, $3::bytea[] AS b, $4::uuid[] AS u",
                               [PGArray(["x", "ÿ"]), PGArray([Int64(5), -6]), PGArray([[UInt8]([1]), []]),
                                PGArray([UUID(), UUID()])])[0]
        XCTAssertEqual(try row.array(String.self, "s"), ["x", "ÿ"])
        XCTAssertEqual(try row.array(Int64.self, "i"), [5, -6])
        XCTAssertEqual(try row.array([UInt8].self, "b"), [[1], []])
        XCTAssertEqual(try row.array(UUID.self, "u").count, 2)

        let withNull = try db.query("SELECT $1::text[] AS s, cardinality($1::text[]) AS n",
                                    [PGArray<String>(["a", nil])])[0]
        XCTAssertEqual(try withNull.int("n"), 2)
        XCTAssertEqual(storeError { try withNull.array(String.self, "s") },
                       .decoding("column \"s\" (oid 1009) as [String]: NULL element"))
    }
}
