import ChatProtocol
import Foundation
import MLSClient
import XCTest

/// The event hub reads the log only while its node holds a subscription: events written while none
/// is open are passed over, and a subscription opened afterwards from an earlier cursor still gets
/// them (from the log), then the later ones live, each exactly once and in order.
final class ChatEventHubTests: ChatContractTestCase {
    func testEventsWrittenWithNoSubscriptionOpenReachALaterSubscription() throws {
        let (alice, _) = try enrolled()
        let (bob, bobIdentity) = try enrolled()
        let inventory = try bob.inventory()

        // Nothing subscribes yet: the hub moves past these events unread (it wakes at least once a
        // second; if it has not yet, the stream below reads them live instead, with the same result).
        let (conversation, _) = try alice.create(inviting: [bobIdentity.did.rawValue])
        Thread.sleep(forTimeInterval: 1.5)

        let stream = try bob.subscribe(inventory)
        let created = try stream.next()
        XCTAssertEqual(created.payload.type, ChatSchema.typePrefix + "conversationChangedEvent")
        XCTAssertEqual(created.payload["conversationId"]?.uuid, conversation)

        // Then live: bob's acceptance changes the conversation and opens his leaf recovery.
        try bob.accept(conversation)
        var live: [String] = []
        for _ in 0..<2 {
            let event = try stream.next()
            XCTAssertEqual(event.payload["conversationId"]?.uuid, conversation)
            live.append(event.payload.type ?? "")
        }
        XCTAssertEqual(live.sorted(), [ChatSchema.typePrefix + "conversationChangedEvent", ChatSchema.typePrefix + "leafRecoveryEvent"])
    }
}
