import ChatProtocol
import Foundation
import MLSClient
import TestSupport
import XCTest

/// Consent and relationships (docs/chat.md): blocks, follows and chat policies read from the users'
/// PDS (the harness's `LoopbackPDS`, which every test user's DID document names), checked before
/// anything is stored.
final class ChatRelationshipTests: ChatContractTestCase {
    func testBlocks_EitherSideAndEveryPair_RefuseTheInvitation_StoringNothing() throws {
        let pds = try service.pds
        let (alice, aliceID) = try enrolled()
        let (_, bob) = try enrolled()
        let (_, carol) = try enrolled()
        let (_, dave) = try enrolled()
        let (_, erin) = try enrolled()
        pds.block(bob.did.rawValue, aliceID.did.rawValue)
        pds.block(aliceID.did.rawValue, carol.did.rawValue)
        pds.block(dave.did.rawValue, erin.did.rawValue)
        let conversations = try count("chat_conversations"), participants = try count("chat_participants")

        XCTAssertEqual(refusal(400) { try alice.create(inviting: [bob.did.rawValue], direct: true) }, "BlockedRelationship",
                       "the invitee blocks the creator")
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [carol.did.rawValue]) }, "BlockedRelationship",
                       "the creator blocks the invitee")
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [dave.did.rawValue, erin.did.rawValue]) }, "BlockedRelationship",
                       "two invitees, one blocking the other")
        XCTAssertEqual(try count("chat_conversations"), conversations, "nothing stored")
        XCTAssertEqual(try count("chat_participants"), participants)

        // Without a block between them, the same accounts are invited.
        XCTAssertNoThrow(try alice.create(inviting: [dave.did.rawValue]))
        XCTAssertNoThrow(try alice.create(inviting: [erin.did.rawValue], direct: true))
    }

    func testAGroupInvitation_IsRefusedAgainstABlockWithAnyParticipant() throws {
        let pds = try service.pds
        let (alice, _) = try enrolled()
        let (_, bob) = try enrolled()
        let (_, carol) = try enrolled()
        let (_, dave) = try enrolled()
        let (group, _) = try alice.create(inviting: [bob.did.rawValue])
        // carol blocks bob, a pending participant; bob and dave have nothing between them.
        pds.block(carol.did.rawValue, bob.did.rawValue)
        let before = try alice.state(group)

        XCTAssertEqual(refusal(400) { try alice.policy(group, invite: [carol.did.rawValue]) }, "BlockedRelationship")
        XCTAssertEqual(refusal(400) { try alice.policy(group, invite: [carol.did.rawValue, dave.did.rawValue]) }, "BlockedRelationship",
                       "one blocked invitee refuses the whole transition")
        XCTAssertEqual(try alice.state(group)["coordinates"], before["coordinates"], "nothing stored")
        XCTAssertNoThrow(try alice.policy(group, invite: [dave.did.rawValue]))
        let invited = try alice.state(group)["participants"]?.array?.compactMap { $0["userDid"]?.text } ?? []
        XCTAssertEqual(Set(invited), [alice.device.did.rawValue, bob.did.rawValue, dave.did.rawValue])
    }

    func testPolicy_None_Following_GroupSetting_AndBypasses() throws {
        let pds = try service.pds
        let (alice, aliceID) = try enrolled()
        let me = aliceID.did.rawValue
        func invitee(_ policy: String?, follows: Bool = false, followedBy: Bool = false) throws -> String {
            let did = try service.makeUser().did.rawValue
            if let policy { pds.setPolicy(did, policy) }
            if follows { pds.follow(did, me) }
            if followedBy { pds.follow(me, did) }
            return did
        }

        let closed = try invitee(#""whoCanMessageMe":"none""#)
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [closed], direct: true) }, "MessagesDisabled")
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [closed]) }, "MessagesDisabled", "a group invitation too")

        let choosy = try invitee(#""whoCanMessageMe":"following""#)
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [choosy], direct: true) }, "NotFollowedByRecipient")
        let friend = try invitee(#""whoCanMessageMe":"following""#, follows: true)
        XCTAssertNoThrow(try alice.create(inviting: [friend], direct: true), "the invitee follows alice")
        let fan = try invitee(#""whoCanMessageMe":"following""#, followedBy: true)
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [fan], direct: true) }, "NotFollowedByRecipient",
                       "alice following the invitee is not the invitee following alice")

        let noGroups = try invitee(#""whoCanMessageMe":"all","allowGroupInvites":"none""#)
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [noGroups]) }, "MessagesDisabled", "the group setting rules groups")
        XCTAssertNoThrow(try alice.create(inviting: [noGroups], direct: true), "and only groups")

        let followersOnly = try invitee(#""whoCanMessageMe":"none","allowFollowersBypass":true"#, followedBy: true)
        XCTAssertNoThrow(try alice.create(inviting: [followersOnly], direct: true), "a follower passes allowFollowersBypass")
        let followingOnly = try invitee(#""whoCanMessageMe":"none","allowFollowingBypass":true"#, follows: true)
        XCTAssertNoThrow(try alice.create(inviting: [followingOnly], direct: true), "an account it follows passes allowFollowingBypass")
        let unreadable = try invitee(#""whoCanMessageMe":"friends-of-friends""#)
        XCTAssertEqual(refusal(400) { try alice.create(inviting: [unreadable], direct: true) }, "MessagesDisabled",
                       "a value the service cannot read lets no stranger in")
        XCTAssertNoThrow(try alice.create(inviting: [try invitee(nil)], direct: true), "no record: anyone")
    }

    func testTheCache_ASecondCheckCostsNoRead() throws {
        let pds = try service.pds
        let (alice, aliceID) = try enrolled()
        let bob = try service.makeUser().did.rawValue
        pds.setPolicy(bob, #""whoCanMessageMe":"following""#)
        pds.follow(bob, aliceID.did.rawValue)
        let collections = [LoopbackPDS.blockCollection, LoopbackPDS.followCollection, LoopbackPDS.policyCollection]
        func reads() -> Int { collections.map { pds.readCount(bob, $0) + pds.readCount(aliceID.did.rawValue, $0) }.reduce(0, +) }

        try alice.create(inviting: [bob])
        let first = reads()
        XCTAssertEqual(first, 4, "bob's policy, blocks and follows, alice's blocks")
        for _ in 0..<3 { try alice.create(inviting: [bob]) }
        XCTAssertEqual(reads(), first, "three more invitations read nothing: the records come from the cache")
    }
}
