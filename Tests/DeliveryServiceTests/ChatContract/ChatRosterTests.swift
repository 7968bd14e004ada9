import ChatProtocol
@testable import DeliveryService
import DeliveryStore
import XCTest

/// `ChatRoster` without a database: each participant and leaf change checked against the roster as
/// it stands, then the bounds and the last-admin rule on the result.
final class ChatRosterTests: XCTestCase {
    let admin = ChatParticipant(did: "did:plc:admin", role: "admin", status: "active", provenance: nil)
    let member = ChatParticipant(did: "did:plc:member", role: "member", status: "active", provenance: nil)
    let invitee = ChatParticipant(did: "did:plc:invitee", role: "member", status: "pending", provenance: Array("{}".utf8))

    func leaf(_ did: String, _ index: UInt32) -> ChatLeaf {
        ChatLeaf(did: did, deviceID: .random(), leafIndex: index, origin: "keyPackage", joinKeyPackageRef: nil, intervalID: .random())
    }

    func code(_ body: () throws -> Void) -> ChatErrorCode? {
        do { try body(); return nil } catch let refusal as ChatRefusal { return refusal.code } catch { return nil }
    }

    func testTheLastActiveAdminCannotGoOrBeDemoted() throws {
        let roster = ChatRoster(participants: [admin, member, invitee], leaves: [leaf(admin.did, 0), leaf(member.did, 1)])
        var demoted = roster
        try demoted.apply(.role(did: admin.did, role: "member"), removeWithLeaves: false)
        XCTAssertEqual(code { try demoted.checkResult() }, .lastAdminRequired)

        var promotedFirst = roster
        try promotedFirst.apply(.role(did: member.did, role: "admin"), removeWithLeaves: false)
        try promotedFirst.checkResult()
        try promotedFirst.apply(.remove(did: admin.did), removeWithLeaves: true)
        for leaf in roster.leaves(of: admin.did) { try promotedFirst.removeLeaf(did: leaf.did, device: leaf.deviceID) }
        try promotedFirst.checkResult()
        XCTAssertEqual(promotedFirst.removed, [admin.did])

        // A pending admin (a direct invitee) does not count as the admin that remains.
        let direct = ChatRoster(participants: [admin, ChatParticipant(did: "did:plc:peer", role: "admin", status: "pending", provenance: nil),
                                               member], leaves: [])
        var gone = direct
        try gone.apply(.remove(did: admin.did), removeWithLeaves: false)
        XCTAssertEqual(code { try gone.checkResult() }, .lastAdminRequired)

        // Nor when every other participant is pending; and the last participant closes instead of leaving.
        let adminLeaf = leaf(admin.did, 0)
        var alone = ChatRoster(participants: [admin, invitee], leaves: [adminLeaf])
        try alone.removeLeaf(did: admin.did, device: adminLeaf.deviceID)
        try alone.apply(.remove(did: admin.did), removeWithLeaves: true)
        XCTAssertEqual(code { try alone.checkResult() }, .lastAdminRequired)
        var last = ChatRoster(participants: [admin], leaves: [])
        try last.apply(.remove(did: admin.did), removeWithLeaves: false)
        XCTAssertEqual(code { try last.checkResult() }, .lastAdminRequired)
    }

    func testAPolicyRemovesOnlyParticipantsWithoutLeaves() throws {
        var roster = ChatRoster(participants: [admin, member, invitee], leaves: [leaf(admin.did, 0), leaf(member.did, 1)])
        XCTAssertEqual(code { try roster.apply(.remove(did: member.did), removeWithLeaves: false) }, .invalidRequest)
        try roster.apply(.remove(did: invitee.did), removeWithLeaves: false)
        XCTAssertEqual(code { try roster.apply(.remove(did: invitee.did), removeWithLeaves: false) }, .invalidRequest,
                       "a DID changes once per transition")
        XCTAssertEqual(code { try roster.apply(.remove(did: "did:plc:stranger"), removeWithLeaves: false) }, .notMember)
        XCTAssertEqual(code { try roster.apply(.role(did: "did:plc:other", role: "admin"), removeWithLeaves: false) }, .notMember)
    }

    func testInvitationsCarryTheTransitionsProvenanceAndTheBoundsHold() throws {
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(.random()), "invitedByDid": .text(admin.did),
                                           "invitedByDeviceId": .uuid(.random())])
        var roster = ChatRoster(participants: [admin], leaves: [leaf(admin.did, 0)])
        XCTAssertEqual(code { try roster.apply(.add(did: "did:plc:x", provenance: .object([:])), expectedProvenance: provenance,
                                               removeWithLeaves: false) }, .invitationProvenanceMismatch)
        XCTAssertEqual(code { try roster.apply(.add(did: admin.did, provenance: provenance), expectedProvenance: provenance,
                                               removeWithLeaves: false) }, .invalidRequest)
        for n in 0..<(ChatRoster.maxParticipants - 1) {
            var copy = roster
            try copy.apply(.add(did: "did:plc:n\(n)", provenance: provenance), expectedProvenance: provenance, removeWithLeaves: false)
            roster = copy
        }
        try roster.checkResult()
        XCTAssertEqual(roster.added.count, 99)
        XCTAssertTrue(roster.added.allSatisfy { $0.status == "pending" && $0.role == "member" })
        try roster.apply(.add(did: "did:plc:onemore", provenance: provenance), expectedProvenance: provenance, removeWithLeaves: false)
        XCTAssertEqual(code { try roster.checkResult() }, .participantLimitReached)

        var leaves = ChatRoster(participants: [admin], leaves: (0..<20).map { leaf(admin.did, $0) })
        try leaves.checkResult()
        leaves.addLeaf(leaf(admin.did, 20))
        XCTAssertEqual(code { try leaves.checkResult() }, .participantLeafLimitReached)
        XCTAssertEqual(code { try leaves.removeLeaf(did: admin.did, device: .random()) }, .invalidLeaveManifest)
    }
}
