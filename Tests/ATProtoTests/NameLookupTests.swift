import Basics
import Dispatch
import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import HTTP

/// Name lookups a deadline can abandon: a resolver that never answers costs the caller its
/// deadline, not the resolver's own time-outs, and a bounded number of threads.
final class NameLookupTests: XCTestCase {
    /// A lookup that blocks until the test releases it, counting how many returned.
    final class StuckResolver: Sendable {
        let release = DispatchSemaphore(value: 0)
        let returned = Atomic<Int>(0)

        var lookup: NameLookup.Lookup {
            { [self] _, port throws(HTTPClientError) in
                release.wait()
                returned.add(1, ordering: .relaxed)
                return [HTTPClientEndpoint(address: IPAddress(ipv4: [127, 0, 0, 1]), port: port)]
            }
        }
    }

    func testTheCallerWalksAwayAtItsDeadline_WhileTheLookupStillRuns() {
        let stuck = StuckResolver()
        let lookup = NameLookup(threads: 2, maxPending: 4, lookup: stuck.lookup)
        XCTAssertThrowsError(try lookup.resolve(host: "plc.example", port: 443, isLiteral: false,
                                                deadline: HTTPClientDeadline(seconds: 0.2))) {
            XCTAssertEqual($0 as? HTTPClientError, .timeout)
        }
        XCTAssertEqual(stuck.returned.load(ordering: .relaxed), 0, "the lookup had not returned when the caller left")
        XCTAssertEqual(lookup.pendingCount, 1, "the stuck lookup still counts")
        stuck.release.signal()
        for _ in 0..<500 where lookup.pendingCount > 0 { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(lookup.pendingCount, 0)
    }

    func testStuckLookupsAreBounded_MoreAreRefusedAtOnce() {
        let stuck = StuckResolver()
        let lookup = NameLookup(threads: 2, maxPending: 2, lookup: stuck.lookup)
        for _ in 0..<2 {
            XCTAssertThrowsError(try lookup.resolve(host: "plc.example", port: 443, isLiteral: false,
                                                    deadline: HTTPClientDeadline(seconds: 0.05)))
        }
        XCTAssertThrowsError(try lookup.resolve(host: "plc.example", port: 443, isLiteral: false,
                                                deadline: HTTPClientDeadline(seconds: 60))) {
            XCTAssertEqual($0 as? HTTPClientError, .io("name lookups busy"))
        }
        stuck.release.signal()
        stuck.release.signal()
    }

    func testAnsweredLookup_AndLiteralsNeverQueue() throws {
        let stuck = StuckResolver()
        let lookup = NameLookup(threads: 1, maxPending: 1, lookup: stuck.lookup)
        stuck.release.signal()
        XCTAssertEqual(try lookup.resolve(host: "plc.example", port: 80, isLiteral: false, deadline: HTTPClientDeadline(seconds: 10))
            .map(\.address), [IPAddress(ipv4: [127, 0, 0, 1])])
        XCTAssertEqual(try lookup.resolve(host: "::1", port: 80, isLiteral: true, deadline: HTTPClientDeadline(seconds: 10))
            .map(\.address.description), ["0:0:0:0:0:0:0:1"])
        XCTAssertEqual(stuck.returned.load(ordering: .relaxed), 1, "the literal never reached the lookup threads")
    }

    /// The whole client: DNS that never answers fails within the request's own timeout.
    func testClientDeadlineCoversNameLookup() {
        let stuck = StuckResolver()
        var client = HTTPClient(timeout: 0.3, allowPrivateAddresses: true)
        client.nameLookup = NameLookup(threads: 1, maxPending: 4, lookup: stuck.lookup)
        XCTAssertThrowsError(try client.get("http://stalled.example/doc")) {
            XCTAssertEqual($0 as? HTTPClientError, .timeout)
        }
        XCTAssertEqual(stuck.returned.load(ordering: .relaxed), 0)
        stuck.release.signal()
    }
}
