@testable import DeliveryService
@testable import DeliveryStore
import Foundation
import XCTest

/// The shared cache of recent events: contiguous runs only, the head never displaced by an older
/// run, bounded per conversation and overall.
final class EventCacheTests: XCTestCase {
    private func events(_ seqs: ClosedRange<Int64>, convo: String = "c1", payload: Int = 10) throws -> [PreparedEvent] {
        try seqs.map { seq in
            let change = "{\"action\":\"joined\",\"did\":\"did:plc:" + String(repeating: "a", count: payload) + "\",\"epoch\":1}"
            return try PreparedEvent(ConvoEvent(convoID: convo, seq: seq, kind: .membershipChangeEvent, payload: change, createdAt: Date()),
                                     message: nil)
        }
    }

    func testContiguousRuns_AreServedFromTheNextSeq() throws {
        let cache = EventCache()
        XCTAssertNil(cache.events(convoID: "c1", after: 0, limit: 10))
        cache.store(convoID: "c1", after: 0, try events(1...5), reachedEnd: true)
        XCTAssertEqual(cache.events(convoID: "c1", after: 0, limit: 10)?.map(\.seq), [1, 2, 3, 4, 5])
        XCTAssertEqual(cache.events(convoID: "c1", after: 3, limit: 1)?.map(\.seq), [4])
        XCTAssertNil(cache.events(convoID: "c1", after: 5, limit: 10), "past the run: ask the log")
        // Overlapping and continuing reads extend the run.
        cache.store(convoID: "c1", after: 3, try events(4...8), reachedEnd: true)
        XCTAssertEqual(cache.events(convoID: "c1", after: 5, limit: 10)?.map(\.seq), [6, 7, 8])
        // A read that does not start right after its position is not kept.
        cache.store(convoID: "c1", after: 20, try events(30...31), reachedEnd: true)
        XCTAssertNil(cache.events(convoID: "c1", after: 29, limit: 10))
    }

    func testAnOlderRun_DoesNotDisplaceTheHead_ButANewerOneReplacesIt() throws {
        let cache = EventCache()
        cache.store(convoID: "c1", after: 100, try events(101...110), reachedEnd: true)
        cache.store(convoID: "c1", after: 10, try events(11...20), reachedEnd: true)
        XCTAssertNil(cache.events(convoID: "c1", after: 10, limit: 10))
        XCTAssertEqual(cache.events(convoID: "c1", after: 100, limit: 2)?.map(\.seq), [101, 102])
        cache.store(convoID: "c1", after: 200, try events(201...202), reachedEnd: true)
        XCTAssertNil(cache.events(convoID: "c1", after: 100, limit: 10))
        XCTAssertEqual(cache.events(convoID: "c1", after: 200, limit: 10)?.map(\.seq), [201, 202])
    }

    func testBounds_PerConversationAndOverall() throws {
        let cache = EventCache(maxEventsPerConvo: 4, maxBytes: 3000)
        cache.store(convoID: "c1", after: 0, try events(1...10), reachedEnd: true)
        XCTAssertNil(cache.events(convoID: "c1", after: 0, limit: 10), "the oldest were trimmed")
        XCTAssertEqual(cache.events(convoID: "c1", after: 6, limit: 10)?.map(\.seq), [7, 8, 9, 10])
        // Each event costs over 256 bytes: a second conversation pushes the least recently used out.
        cache.store(convoID: "c2", after: 0, try events(1...4, convo: "c2", payload: 300), reachedEnd: true)
        XCTAssertLessThanOrEqual(cache.eventCount, 8)
        XCTAssertNotNil(cache.events(convoID: "c2", after: 0, limit: 10))
        XCTAssertNil(cache.events(convoID: "c1", after: 6, limit: 10), "evicted, least recently used")
    }

    /// A run shorter than asked for answers only if it reaches what is known to exist: what the
    /// event channel announced, or one past a read that stopped at its batch size.
    func testAShortRun_IsNoAnswer_WhenMoreIsKnownToExist() throws {
        let cache = EventCache()
        cache.store(convoID: "c1", after: 0, try events(1...5), reachedEnd: true)
        XCTAssertEqual(cache.events(convoID: "c1", after: 2, limit: 10)?.map(\.seq), [3, 4, 5], "the log's end when read")
        cache.heard(convoID: "c1", seq: 5)
        XCTAssertEqual(cache.events(convoID: "c1", after: 2, limit: 10)?.map(\.seq), [3, 4, 5], "nothing announced past it")
        cache.heard(convoID: "c1", seq: 7)
        XCTAssertNil(cache.events(convoID: "c1", after: 2, limit: 10), "6 and 7 were announced: ask the log")
        XCTAssertEqual(cache.events(convoID: "c1", after: 2, limit: 3)?.map(\.seq), [3, 4, 5], "as much as asked for")
        cache.store(convoID: "c1", after: 5, try events(6...7), reachedEnd: true)
        XCTAssertEqual(cache.events(convoID: "c1", after: 2, limit: 10)?.map(\.seq), [3, 4, 5, 6, 7])

        // A read cut at its batch size: the log holds at least one more.
        cache.store(convoID: "c2", after: 0, try events(1...4, convo: "c2"), reachedEnd: false)
        XCTAssertNil(cache.events(convoID: "c2", after: 1, limit: 10))
        XCTAssertEqual(cache.events(convoID: "c2", after: 1, limit: 3)?.map(\.seq), [2, 3, 4])
    }
}
