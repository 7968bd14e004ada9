import DeliveryStore
import Foundation
import Store
import XCTest

final class ProposalTests: StoreTestCase {
    private func proposal(_ convo: String, epoch: Int64, ref: [UInt8], sender: String = "bob",
                          leaf: UInt32 = 1) -> PendingProposal {
        PendingProposal(convoID: convo, epoch: epoch, ref: ref, senderLeaf: leaf, senderDID: user(sender), kind: "remove",
                        proposal: [0x50] + ref)
    }

    func test_pendingProposals_areKeptPerEpoch_untilACommitCoversThem() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")], epoch: 1)
        XCTAssertTrue(try store.addPendingProposal(proposal(convo, epoch: 1, ref: [1])))
        XCTAssertFalse(try store.addPendingProposal(proposal(convo, epoch: 1, ref: [1])), "same ref again")
        XCTAssertTrue(try store.addPendingProposal(proposal(convo, epoch: 1, ref: [2], sender: "carol", leaf: 2)))
        XCTAssertEqual(deliveryError { try store.addPendingProposal(proposal(convo, epoch: 0, ref: [3])) },
                       .epochMismatch(current: 1))
        XCTAssertEqual(deliveryError { try store.addPendingProposal(proposal(convo, epoch: 1, ref: [4], sender: "zed")) },
                       .notMember)
        let kept = try store.pendingProposals(convoID: convo, epoch: 1)
        XCTAssertEqual(kept.map(\.ref), [[1], [2]])
        XCTAssertEqual(kept[0].senderLeaf, 1)
        XCTAssertEqual(kept[0].proposal, [0x50, 1])
        XCTAssertEqual(kept[0].kind, "remove")
        XCTAssertEqual(try store.pendingProposals(convoID: convo, epoch: 0), [])

        // A commit that covers bob's proposal only is refused: carol's request would be lost.
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 1, members: [leaf(0, "alice"), leaf(2, "carol")],
                                                                      departures: [1: .left], covered: [[1]])) },
                       .proposalsNotCovered(count: 1))
        XCTAssertEqual(try store.epoch(convoID: convo), 1)
        XCTAssertEqual(try store.pendingProposals(convoID: convo).map(\.ref), [[1], [2]])
        _ = try store.applyCommit(commit(convo, from: 1, members: [leaf(0, "alice")],
                                         departures: [1: .left, 2: .left], covered: [[1], [2]]))
        XCTAssertEqual(try store.pendingProposals(convoID: convo), [])
    }

    func test_aFrozenConversation_takesNoCommitMessageOrProposal() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")], epoch: 1)
        var reInit = commit(convo, from: 1, members: [leaf(0, "alice"), leaf(1, "bob")])
        reInit.freezes = true
        _ = try store.applyCommit(reInit)
        XCTAssertEqual(try store.loadConvo(convo).frozenEpoch, 2)
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 2, members: [leaf(0, "alice")])) }, .groupFrozen)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, epoch: 2)) }, .groupFrozen)
        XCTAssertEqual(deliveryError { try store.addPendingProposal(proposal(convo, epoch: 2, ref: [9])) }, .groupFrozen)
        XCTAssertEqual(try store.epoch(convoID: convo), 2)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1 AND message_type = 'app'", [convo]), 0)
    }
}
