@testable import DeliveryStore
import XCTest

/// The lane's bookkeeping without threads: who leads, what each batch takes, what stays queued.
final class MessageBatchLaneTests: XCTestCase {
    struct Entry: MessageBatchEntry, Equatable {
        let name: String
        let exclusiveKeys: [String]
        init(_ name: String, _ keys: String...) {
            self.name = name
            exclusiveKeys = keys
        }
    }

    func names(_ action: MessageBatchLane<Entry>.SubmitAction) -> [String]? {
        if case .lead(let batch) = action { return batch.map(\.name) }
        return nil
    }

    func test_firstSubmitLeads_othersQueue_andTheLeaderTakesThemAsItsNextBatch() {
        var lane = MessageBatchLane<Entry>(maxBatch: 10)
        XCTAssertEqual(names(lane.submit(Entry("a", "1"))), ["a"])
        XCTAssertNil(names(lane.submit(Entry("b", "2"))))
        XCTAssertNil(names(lane.submit(Entry("c", "3"))))
        XCTAssertTrue(lane.leading)
        XCTAssertEqual(lane.finish()?.map(\.name), ["b", "c"])
        // More arrive while that batch runs: they wait for the one after.
        XCTAssertNil(names(lane.submit(Entry("d", "4"))))
        XCTAssertEqual(lane.finish()?.map(\.name), ["d"])
        XCTAssertNil(lane.finish())
        XCTAssertFalse(lane.leading)
        XCTAssertEqual(names(lane.submit(Entry("e", "5"))), ["e"])
    }

    func test_entriesSharingAKey_goToSeparateBatches_inOrder() {
        var lane = MessageBatchLane<Entry>(maxBatch: 10)
        _ = lane.submit(Entry("lead", "x"))
        for entry in [Entry("a", "m1", "t1"), Entry("b", "m1", "t2"), Entry("c", "m2", "t1"), Entry("d", "m3", "t3"),
                      Entry("e", "m1", "t4")] {
            _ = lane.submit(entry)
        }
        XCTAssertEqual(lane.finish()?.map(\.name), ["a", "d"])
        XCTAssertEqual(lane.finish()?.map(\.name), ["b", "c"])
        XCTAssertEqual(lane.finish()?.map(\.name), ["e"])
        XCTAssertNil(lane.finish())
    }

    func test_batchesStopAtMaxBatch() {
        var lane = MessageBatchLane<Entry>(maxBatch: 2)
        _ = lane.submit(Entry("lead", "x"))
        for name in ["a", "b", "c"] { _ = lane.submit(Entry(name, name)) }
        XCTAssertEqual(lane.finish()?.map(\.name), ["a", "b"])
        XCTAssertEqual(lane.queue.map(\.name), ["c"])
    }

    func test_laneIndex_isStableAndInRange() {
        let ids = (0..<100).map { "convo\($0)" }
        let lanes = ids.map { MessageBatcher.laneIndex($0, count: 4) }
        XCTAssertEqual(lanes, ids.map { MessageBatcher.laneIndex($0, count: 4) })
        XCTAssertTrue(lanes.allSatisfy { (0..<4).contains($0) })
        XCTAssertEqual(Set(lanes).count, 4)
    }
}
