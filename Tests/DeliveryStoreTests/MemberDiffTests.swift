import XCTest
@testable import DeliveryStore

final class MemberDiffTests: XCTestCase {
    private func leaf(_ index: UInt32, _ identity: String, credential: [UInt8] = [1]) -> MemberLeaf {
        MemberLeaf(leafIndex: index, credentialIdentity: identity, credential: credential)
    }

    func test_did_stripsTheDeviceFragment() {
        XCTAssertEqual(leaf(0, "did:plc:a#phone").did, "did:plc:a")
        XCTAssertEqual(leaf(0, "did:plc:a").did, "did:plc:a")
        XCTAssertEqual(leaf(0, "did:web:example.com#x#y").did, "did:web:example.com")
    }

    func test_addAndRemove_byLeafAndByDID() throws {
        let current = [leaf(0, "did:plc:a"), leaf(1, "did:plc:b"), leaf(2, "did:plc:c")]
        let next = [leaf(0, "did:plc:a"), leaf(2, "did:plc:c"), leaf(3, "did:plc:d")]
        let diff = try MemberDiff(current: current, next: next, departures: [1: .left], epoch: 5)
        XCTAssertEqual(diff.joined, [leaf(3, "did:plc:d")])
        XCTAssertEqual(diff.departed, [.init(leafIndex: 1, did: "did:plc:b", reason: .left)])
        XCTAssertEqual(diff.updated, [])
        XCTAssertEqual(diff.changes, [MembershipChange(did: "did:plc:b", action: .left, epoch: 5),
                                      MembershipChange(did: "did:plc:d", action: .joined, epoch: 5)])
    }

    func test_unlistedDeparture_countsAsRemoved() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a"), leaf(1, "did:plc:b")], next: [leaf(0, "did:plc:a")],
                                  departures: [:], epoch: 1)
        XCTAssertEqual(diff.changes, [MembershipChange(did: "did:plc:b", action: .removed, epoch: 1)])
    }

    func test_sameDIDAtAnotherLeaf_changesLeavesButNotMembership() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a"), leaf(1, "did:plc:b")],
                                  next: [leaf(0, "did:plc:a"), leaf(4, "did:plc:b")], departures: [:], epoch: 2)
        XCTAssertEqual(diff.joined.map(\.leafIndex), [4])
        XCTAssertEqual(diff.departed.map(\.leafIndex), [1])
        XCTAssertEqual(diff.changes, [])
    }

    func test_secondDevice_isALeafNotAMembershipChange() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a#1")], next: [leaf(0, "did:plc:a#1"), leaf(1, "did:plc:a#2")],
                                  departures: [:], epoch: 3)
        XCTAssertEqual(diff.joined.map(\.leafIndex), [1])
        XCTAssertEqual(diff.changes, [])
    }

    func test_leafTakenByAnotherDID_isADepartureAndAJoin() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a"), leaf(1, "did:plc:b")],
                                  next: [leaf(0, "did:plc:a"), leaf(1, "did:plc:c")], departures: [:], epoch: 4)
        XCTAssertEqual(diff.departed, [.init(leafIndex: 1, did: "did:plc:b", reason: .removed)])
        XCTAssertEqual(diff.joined, [leaf(1, "did:plc:c")])
        XCTAssertEqual(diff.changes.map(\.action), [.removed, .joined])
    }

    func test_credentialChangeOnTheSameLeaf_isAnUpdate() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a", credential: [1])],
                                  next: [leaf(0, "did:plc:a#new", credential: [2])], departures: [:], epoch: 1)
        XCTAssertEqual(diff.updated, [leaf(0, "did:plc:a#new", credential: [2])])
        XCTAssertEqual(diff.joined, [])
        XCTAssertEqual(diff.departed, [])
    }

    func test_mixedReasons_forOneDID_countAsRemoved() throws {
        let diff = try MemberDiff(current: [leaf(0, "did:plc:a"), leaf(1, "did:plc:b#1"), leaf(2, "did:plc:b#2")],
                                  next: [leaf(0, "did:plc:a")], departures: [1: .left], epoch: 1)
        XCTAssertEqual(diff.changes, [MembershipChange(did: "did:plc:b", action: .removed, epoch: 1)])
    }

    func test_invalidLists_areRejected() {
        XCTAssertEqual(deliveryError { try MemberDiff(current: [], next: [], departures: [:], epoch: 0) },
                       .invalidArgument("a group keeps at least one member"))
        guard case .invalidArgument = deliveryError({
            try MemberDiff(current: [], next: [self.leaf(1, "did:plc:a"), self.leaf(1, "did:plc:b")], departures: [:], epoch: 0)
        }) else { return XCTFail("duplicate leaf accepted") }
        guard case .invalidArgument = deliveryError({
            try MemberDiff(current: [], next: [self.leaf(0, "#device")], departures: [:], epoch: 0)
        }) else { return XCTFail("empty DID accepted") }
    }
}
