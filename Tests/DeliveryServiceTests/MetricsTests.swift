@testable import DeliveryService
import Foundation
import HTTP
import MLS
import Store
import XCTest

/// `/metrics` against the running service: the text parses as Prometheus exposition format, and
/// the counters move with the requests made.
final class MetricsTests: XCTestCase {
    /// Samples by series (`name{labels}` exactly as written), after checking every line's syntax.
    func scrape(_ service: ServiceHarness, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Double] {
        let reply = try service.get(path: "/metrics")
        XCTAssertEqual(reply.status, 200, file: file, line: line)
        XCTAssertEqual(reply.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8", file: file, line: line)
        return try Self.parse(String(decoding: reply.body, as: UTF8.self))
    }

    static let sampleLine = try! NSRegularExpression(
        pattern: #"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? (-?[0-9.e+-]+|\+Inf|NaN)$"#)
    static let commentLine = try! NSRegularExpression(
        pattern: #"^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram))$"#)

    static func parse(_ text: String) throws -> [String: Double] {
        XCTAssertTrue(text.hasSuffix("\n"))
        var samples: [String: Double] = [:]
        var typed: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let string = String(line)
            let range = NSRange(string.startIndex..., in: string)
            if string.hasPrefix("#") {
                XCTAssertNotNil(commentLine.firstMatch(in: string, range: range), "bad comment line: \(string)")
                if string.hasPrefix("# TYPE ") { XCTAssertTrue(typed.insert(String(string.split(separator: " ")[2])).inserted) }
                continue
            }
            let match = try XCTUnwrap(sampleLine.firstMatch(in: string, range: range), "bad sample line: \(string)")
            let name = String(string[Range(match.range(at: 1), in: string)!])
            let family = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) && typed.contains(String($0.dropLast($1.count))) ? String($0.dropLast($1.count)) : $0 }
            XCTAssertTrue(typed.contains(family), "sample before its TYPE: \(string)")
            let series = String(string[..<string.lastIndex(of: " ")!])
            XCTAssertNil(samples[series], "duplicate series \(series)")
            samples[series] = Double(string[string.index(after: string.lastIndex(of: " ")!)...]) ?? .nan
        }
        return samples
    }

    func test_exposition_parses_andCountersMoveWithRequests() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let alice = service.makeUser()
        let getConvos = "blue.catbird.mls.getConvos"
        let ok = "catbird_mls_requests_total{method=\"\(getConvos)\",status=\"200\"}"
        let before = try scrape(service)
        XCTAssertNil(before[ok])
        XCTAssertEqual(before["catbird_mls_http_connections"].map { $0 >= 1 }, true, "the scrape's own connection is open")
        XCTAssertEqual(before["catbird_mls_db_pool_size"], 8)

        for _ in 0..<3 { XCTAssertEqual(try service.call(getConvos, as: alice).status, 200) }
        XCTAssertEqual(try service.call(getConvos, headers: [("Authorization", "Bearer not.a.jwt")]).status, 401)
        XCTAssertEqual(try service.call(getConvos).status, 401)
        XCTAssertEqual(try service.call("blue.catbird.mls.noSuchMethod").status, 404)

        let after = try scrape(service)
        XCTAssertEqual(after[ok], 3)
        XCTAssertEqual(after["catbird_mls_requests_total{method=\"\(getConvos)\",status=\"401\"}"], 2)
        XCTAssertEqual(after["catbird_mls_requests_total{method=\"_unknown\",status=\"404\"}"], 1)
        XCTAssertEqual(after["catbird_mls_request_duration_seconds_count{method=\"\(getConvos)\"}"], 5)
        XCTAssertEqual(after["catbird_mls_request_duration_seconds_bucket{method=\"\(getConvos)\",le=\"+Inf\"}"], 5)
        // Buckets are cumulative.
        let buckets = LatencyHistogram.bounds.map { PrometheusText.number($0) }.compactMap {
            after["catbird_mls_request_duration_seconds_bucket{method=\"\(getConvos)\",le=\"\($0)\"}"]
        }
        XCTAssertEqual(buckets.count, LatencyHistogram.bounds.count)
        XCTAssertEqual(buckets, buckets.sorted())
        XCTAssertEqual(after["catbird_mls_auth_failures_total{reason=\"BadJwt\"}"], 1)
        XCTAssertEqual(after["catbird_mls_auth_failures_total{reason=\"AuthenticationRequired\"}"], 1)
        XCTAssertEqual(after["catbird_mls_rate_limited_total{scope=\"ip\"}"], 0)
        XCTAssertNotNil(after["catbird_mls_db_pool_in_use"])
        XCTAssertNotNil(after["catbird_mls_rate_limit_keys"])
        XCTAssertEqual(after["catbird_mls_database_up"], 1)
        XCTAssertEqual(after["catbird_mls_event_fanout_pending"].map { $0 >= 0 }, true)
        // No label value ever comes from the request: the unknown NSID is not a series.
        XCTAssertFalse(after.keys.contains { $0.contains("noSuchMethod") })
    }

    /// The gauges say what their sources say: a database that stopped answering pings is 0, and the
    /// fan-out's backlog is its count; the connection counters are per connection.
    func test_gauges_reportTheDatabaseAndTheFanOutBacklog() throws {
        let metrics = ServiceMetrics(nsids: [])
        let pool = ConnectionCounters(), listener = ConnectionCounters()
        for (up, pending) in [(false, 7), (true, 0)] {
            metrics.setGauges(ServiceMetrics.Gauges(httpConnections: { 0 }, databasePool: { (4, 4) }, rateLimitKeys: { 0 },
                                                    databaseUp: { up }, eventFanoutPending: { pending },
                                                    connections: [("pool", pool), ("listener", listener)]))
            let samples = try Self.parse(metrics.render())
            XCTAssertEqual(samples["catbird_mls_database_up"], up ? 1 : 0)
            XCTAssertEqual(samples["catbird_mls_event_fanout_pending"], Double(pending))
            for connection in ["pool", "listener"] {
                for name in ["catbird_mls_db_reconnects_total", "catbird_mls_db_connections_lost_total", "catbird_mls_db_connect_failures_total"] {
                    XCTAssertEqual(samples["\(name){connection=\"\(connection)\"}"], 0, "\(name) \(connection)")
                }
            }
        }
    }

    func test_commitsAcceptedAndRejected_areCounted() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let flow = ChatFlow(service: service)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        let output = try XCTUnwrap(alice.groups[convo]).update()
        func commit() throws -> ServiceHarness.Reply {
            try service.call("blue.catbird.mls.commitGroupChange", as: alice.identity, json: [
                "convoId": convo, "commit": ["$bytes": Base64Test.encode(output.commit.encoded())],
            ])
        }
        XCTAssertEqual(try commit().status, 200)
        let replay = try commit()
        XCTAssertEqual(replay.status, 409)
        let garbage = try service.call("blue.catbird.mls.commitGroupChange", as: alice.identity, json: [
            "convoId": convo, "commit": ["$bytes": Base64Test.encode([0, 1, 2, 3])],
        ])
        XCTAssertEqual(garbage.error, "InvalidCommit")
        let samples = try scrape(service)
        XCTAssertEqual(samples["catbird_mls_epochs_advanced_total"], 1)
        XCTAssertEqual(samples["catbird_mls_commits_rejected_total{reason=\"\(try XCTUnwrap(replay.error))\"}"], 1)
        XCTAssertEqual(samples["catbird_mls_commits_rejected_total{reason=\"InvalidCommit\"}"], 1)
    }

    func test_metricsToken_protectsTheEndpoint() throws {
        let service = try ServiceHarness(environment: ["METRICS_TOKEN": "s3cret"])
        defer { service.shutdown() }
        XCTAssertEqual(try service.get(path: "/metrics").status, 401)
        let client = HTTPClient(timeout: 10, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        func get(_ authorization: String) throws -> HTTPClientResponse {
            try client.send(method: "GET", service.baseURL + "/metrics", headers: [("Authorization", authorization)])
        }
        for wrong in ["Bearer s3creu", "Bearer s3cret!", "Bearer s3cre", "Basic s3cret", "s3cret", ""] {
            XCTAssertEqual(try get(wrong).status, 401, wrong)
        }
        let reply = try get("Bearer s3cret")
        XCTAssertEqual(reply.status, 200)
        XCTAssertFalse(try Self.parse(String(decoding: reply.body, as: UTF8.self)).isEmpty)
    }

    // MARK: Units

    func test_labelValues_areEscaped_andBounded() {
        XCTAssertEqual(PrometheusText.escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd")
        let counters = LabeledCounters(maxLabels: 2)
        counters.increment("A")
        counters.increment("B")
        counters.increment("C")
        counters.increment("has space")
        XCTAssertEqual(counters.snapshot.map(\.label), ["A", "B", "other"])
        XCTAssertEqual(counters.snapshot.last?.value, 2)
    }

    func test_histogram_bucketsAreCumulative() {
        let histogram = LatencyHistogram()
        histogram.observe(nanoseconds: 500_000)        // 0.5 ms → le 0.001
        histogram.observe(nanoseconds: 1_000_000)      // exactly 1 ms → le 0.001
        histogram.observe(nanoseconds: 30_000_000)     // 30 ms → le 0.05
        histogram.observe(nanoseconds: 60_000_000_000) // 60 s → +Inf only
        let counts = histogram.cumulativeCounts
        XCTAssertEqual(counts.count, LatencyHistogram.bounds.count + 1)
        XCTAssertEqual(counts[0], 2)
        XCTAssertEqual(counts[LatencyHistogram.bounds.firstIndex(of: 0.025)!], 2)
        XCTAssertEqual(counts[LatencyHistogram.bounds.firstIndex(of: 0.05)!], 3)
        XCTAssertEqual(counts[LatencyHistogram.bounds.count - 1], 3)
        XCTAssertEqual(counts.last, 4)
        XCTAssertEqual(histogram.sumSeconds, 60.0315, accuracy: 1e-9)
    }

    /// The request log line: DIDs only at debug level; nothing else that identifies or authenticates.
    func test_requestLogLine_keepsTheCallerOutUnlessDebugging() throws {
        let did = "did:plc:abcdefghijklmnopqrstuvwx"
        let entry = RequestLogEntry(requestID: "r-1", nsid: "blue.catbird.mls.sendMessage", status: 409,
                                    errorName: "MessageIdConflict", durationMicros: 1234, caller: did)
        let date = Date(timeIntervalSince1970: 0)
        let info = String(decoding: Log.line(level: .info, message: RequestLogEntry.message,
                                             fields: entry.fields(includeCaller: false), date: date), as: UTF8.self)
        XCTAssertFalse(info.contains("did:"), info)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: String])
        XCTAssertEqual(object, ["ts": "1970-01-01T00:00:00.000Z", "level": "info", "msg": "request", "id": "r-1",
                                "method": "blue.catbird.mls.sendMessage", "status": "409", "error": "MessageIdConflict",
                                "duration_us": "1234"])
        XCTAssertTrue(info.hasSuffix("}\n"))
        XCTAssertEqual(info.filter { $0 == "\n" }.count, 1)

        let debug = String(decoding: Log.line(level: .info, message: RequestLogEntry.message,
                                              fields: entry.fields(includeCaller: true), date: date), as: UTF8.self)
        let debugObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(debug.utf8)) as? [String: String])
        XCTAssertEqual(debugObject["did"], did)
        // The entry has no field that could hold a token, a body or key material.
        XCTAssertEqual(Set(debugObject.keys), ["ts", "level", "msg", "id", "method", "status", "error", "duration_us", "did"])
    }

    func test_logLine_staysOneLineWhateverTheValues() throws {
        let line = Log.line(level: .warning, message: "m\n\"x\"", fields: [("k\n", "v\r\n\u{0}\u{2028}")],
                            date: Date(timeIntervalSince1970: 0))
        let text = String(decoding: line, as: UTF8.self)
        XCTAssertEqual(text.filter { $0 == "\n" }.count, 1)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
        XCTAssertEqual(object["msg"], "m\n\"x\"")
        XCTAssertEqual(object["k\n"], "v\r\n\u{0}\u{2028}")
    }
}
