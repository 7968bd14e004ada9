import ChatProtocol
import MLSClient
import XCTest

/// The walkthrough on X-Wing: alice with two devices, bob and carol; a group created,
/// invitations accepted and fulfilled, Welcomes found and acknowledged, messages both ways with
/// every signature verified by the reader, bob's second device joining through its own recovery
/// request and reading nothing from before, a revoked device refused.
final class ChatWalkthroughTests: ChatContractTestCase {
    func testWalkthrough() throws {
        let (a1, alice) = try enrolled()
        let (bob1, bob) = try enrolled()
        let (carol1, carol) = try enrolled()

        // alice creates a group inviting bob and carol: her device is its only leaf.
        let (conversation, created) = try a1.create(inviting: [bob.did.rawValue, carol.did.rawValue], title: "trip")
        XCTAssertEqual(created.type, ChatSchema.typePrefix + "conversationCreatedResult")
        let state = try bob1.state(conversation)
        XCTAssertEqual(state["participants"]?.array?.count, 3)
        XCTAssertEqual(state["leaves"]?.array?.count, 1)

        // bob accepts; alice, a current leaf, fulfils his recovery; bob joins from the Welcome.
        let bobRecovery = try bob1.accept(conversation)
        XCTAssertEqual(bobRecovery["status"]?.text, "open")
        try a1.fulfil(try recovery(for: bob1, in: conversation, seenBy: a1))
        XCTAssertEqual(try join(bob1), conversation)

        // carol the same, fulfilled by bob this time.
        try carol1.accept(conversation)
        try bob1.fulfil(try recovery(for: carol1, in: conversation, seenBy: bob1))
        try join(carol1)

        // alice's second device asks for a leaf and carol adds it.
        let (a2, _) = try enrolled(alice)
        try a2.requestLeaf(conversation)
        try carol1.fulfil(try recovery(for: a2, in: conversation, seenBy: carol1))
        try join(a2)
        XCTAssertEqual(try a1.state(conversation)["leaves"]?.array?.count, 4)

        // Messages both ways; every reader verifies each entry's signature before decrypting.
        try a1.send(conversation, text: "hello from alice")
        try bob1.send(conversation, text: "hi alice, bob here")
        XCTAssertEqual(try carol1.read(conversation).map(\.text), ["hello from alice", "hi alice, bob here"])
        XCTAssertEqual(try a2.read(conversation).map(\.text), ["hello from alice", "hi alice, bob here"])
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["hi alice, bob here"])
        XCTAssertEqual(try bob1.read(conversation).map(\.text), ["hello from alice"])

        // bob's second device joins through requestLeafRecovery and finds its Welcome on the event
        // stream (opened as the app opens it, with its session token in Authorization, which the
        // service ignores); it reads nothing from before.
        let (bob2, _) = try enrolled(bob)
        let bob2Stream = try bob2.subscribe(try bob2.inventory(), extraHeaders: [("Authorization", "Bearer not-a-service-token")])
        let carolStream = try carol1.subscribe(try carol1.inventory())
        try bob2.requestLeaf(conversation)
        try a2.fulfil(try recovery(for: bob2, in: conversation, seenBy: a2))
        var bob2Events: [String] = []
        while !bob2Events.contains(ChatSchema.typePrefix + "welcomeAvailableEvent") {
            bob2Events.append(try bob2Stream.next().payload.type ?? "")
        }
        XCTAssertTrue(bob2Events.contains(ChatSchema.typePrefix + "leafRecoveryEvent"), "\(bob2Events)")
        try join(bob2)
        // carol, a leaf, heard of the recovery request and of the fulfilment's entry.
        var carolEvents: [ChatValue] = []
        while !carolEvents.contains(where: { $0.type == ChatSchema.typePrefix + "messageAvailableEvent" }) {
            carolEvents.append(try carolStream.next().payload)
        }
        XCTAssertEqual(carolEvents.first?.type, ChatSchema.typePrefix + "leafRecoveryEvent")
        XCTAssertEqual(refusal(400) { try bob2.query("getEntries", [("conversationId", conversation.description), ("afterSeq", "0"), ("limit", "100")]) },
                       "AccessOutsideMembershipInterval")
        try carol1.send(conversation, text: "welcome, bob's phone")
        XCTAssertEqual(try bob2.read(conversation).map(\.text), ["welcome, bob's phone"])

        // A revoked device is refused.
        try bob1.revoke(bob2.device.deviceID, generation: 1)
        XCTAssertEqual(refusal(401) { try bob2.send(conversation, text: "still here?") }, "DeviceRevoked")
        XCTAssertEqual(refusal(401) { try bob2.query("getOwnDevices") }, "DeviceRevoked")
    }
}
