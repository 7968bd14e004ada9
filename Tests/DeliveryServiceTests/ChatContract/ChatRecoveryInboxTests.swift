import ChatProtocol
import DeliveryStore
import Foundation
import MLSClient
import TestSupport
import XCTest

/// Recovery work (defs `recoveryWorkView`): a Welcome the device rejected, or one that expired,
/// leaves work in that device's getLeafRecoveryInbox; it reserves nothing, and once the device asks
/// for its leaf to be replaced (the commit that added it stands) and is added, the work is completed
/// by that transition.
final class ChatRecoveryInboxTests: ChatContractTestCase {
    /// bob's device, invited by alice and added: its Welcome is pending.
    func invitedAndAdded() throws -> (alice: ChatClient, bob: ChatClient, conversation: ChatUUID, welcome: ChatValue) {
        let (alice, _) = try enrolled()
        let (bob, bobIdentity) = try enrolled()
        let (conversation, _) = try alice.create(inviting: [bobIdentity.did.rawValue])
        try bob.accept(conversation)
        try alice.fulfil(try recovery(for: bob, in: conversation, seenBy: alice))
        let welcome = try XCTUnwrap(try bob.inventory().welcomes.first { $0["conversationId"]?.uuid == conversation })
        return (alice, bob, conversation, welcome)
    }

    func work(_ client: ChatClient, _ conversation: ChatUUID) throws -> [ChatValue] {
        try client.inventory().recoveries.filter { $0["conversationId"]?.uuid == conversation && $0["recoveryWorkId"] != nil }
    }

    func disposition(_ client: ChatClient, _ method: String, _ welcome: ChatValue) throws -> ChatValue {
        var fields: [String: ChatValue] = [
            "welcomeId": try XCTUnwrap(welcome["welcomeId"]), "transitionSeq": try XCTUnwrap(welcome["transitionSeq"]),
            "coordinates": try XCTUnwrap(welcome["coordinates"]),
        ]
        if method == "rejectWelcome" { fields["reason"] = .text("localStateConflict") }
        return try client.signed(method, method == "rejectWelcome" ? .welcomeRejection : .welcomeAcknowledgement, fields)
    }

    func testARejectedWelcomeLeavesWorkThatTheNextAdditionCompletes() throws {
        let (alice, bob, conversation, welcome) = try invitedAndAdded()
        XCTAssertEqual(try work(bob, conversation), [], "no work while the Welcome is pending")
        XCTAssertEqual(try disposition(bob, "rejectWelcome", welcome)["status"]?.text, "rejected")
        XCTAssertEqual(refusal(400) { try self.disposition(bob, "acknowledgeWelcome", welcome) }, "AcknowledgementConflict")
        XCTAssertEqual(refusal(400) { try self.disposition(bob, "rejectWelcome", welcome) }, "RejectionConflict")
        XCTAssertEqual(try bob.inventory().welcomes.filter { $0["conversationId"]?.uuid == conversation }, [])

        let pending = try work(bob, conversation)
        XCTAssertEqual(pending.count, 1)
        XCTAssertEqual(pending.first?.type, ChatSchema.typePrefix + "recoveryWorkPendingView", "\(pending)")
        XCTAssertEqual(try work(alice, conversation), [], "the work is the rejecting device's own")

        // The commit that added bob's device stands: it holds a leaf it cannot use, so it asks for a
        // replacement; alice's commit swaps it, he joins, and the work is completed by that transition.
        XCTAssertEqual(refusal(400) { try bob.requestLeaf(conversation) }, "InvalidRequest")
        try bob.requestLeaf(conversation, kind: .replace)
        try alice.fulfil(try recovery(for: bob, in: conversation, seenBy: alice))
        try join(bob)
        let done = try work(bob, conversation)
        XCTAssertEqual(done.map(\.type), [ChatSchema.typePrefix + "recoveryWorkCompletedByTransitionView"], "\(done)")
        try alice.send(conversation, text: "welcome back")
        XCTAssertEqual(try bob.read(conversation).map(\.text), ["welcome back"])
    }

    func testAnExpiredWelcomeIsSettledWhenTouchedAndLeavesWork() throws {
        let (alice, bob, conversation, welcome) = try invitedAndAdded()
        let database = try service.app.database
        try database.execute("UPDATE chat_welcomes SET expires_at = now() - interval '1 second' WHERE welcome_id = $1",
                             [try XCTUnwrap(welcome["welcomeId"]?.uuid)])
        let pending = try work(bob, conversation)
        XCTAssertEqual(pending.map(\.type), [ChatSchema.typePrefix + "recoveryWorkPendingView"], "\(pending)")
        XCTAssertEqual(try bob.inventory().welcomes.filter { $0["conversationId"]?.uuid == conversation }, [])
        XCTAssertEqual(refusal(400) { try self.disposition(bob, "acknowledgeWelcome", welcome) }, "WelcomeExpired")
        try bob.requestLeaf(conversation, kind: .replace)
        try alice.fulfil(try recovery(for: bob, in: conversation, seenBy: alice))
        try join(bob)
        XCTAssertEqual(try work(bob, conversation).map(\.type), [ChatSchema.typePrefix + "recoveryWorkCompletedByTransitionView"])
    }
}
