import ChatProtocol
import Foundation
import MLS
import MLSClient
import Primitives
import TestSupport
import XCTest

/// Hostile input to the chat contract (issue 32): each refused with its contract error, and nothing
/// stored (the rows the request would have written are counted before and after).
final class ChatHostileInputTests: ChatContractTestCase {
    /// alice's device in a group where bob's device holds a leaf too.
    func pair() throws -> (alice: ChatClient, bob: ChatClient, conversation: ChatUUID) {
        let (alice, bob, _, conversation) = try pairWithIdentity()
        return (alice, bob, conversation)
    }

    /// A sendMessage body of `client` for `conversation` at its current coordinates.
    func sendBody(_ client: ChatClient, _ conversation: ChatUUID, messageID: ChatUUID = .random(),
                  prior: ConversationCoordinates? = nil) throws -> ChatValue {
        let prior = try prior ?? client.coordinates(conversation)
        var membership = try XCTUnwrap(client.conversations[conversation])
        let aad = MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior)
        let message = try membership.group.encrypt([1, 2, 3],
                                                   authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.applicationDomain, aad: aad)).encoded()
        return client.body(.applicationSend, [
            "messageId": .uuid(messageID), "prior": prior.value, "aad": aad,
            "applicationMessage": .object(["framing": .text("mlsMessage"), "contentType": .text("privateMessageApplication"),
                                           "bytes": .bytes(message), "sha256": .bytes(HashAlgorithm.sha256.hash(message))]),
            "blobBindings": .array([]),
        ])
    }

    /// Posts raw JSON to sendMessage as `client`'s account.
    func post(_ client: ChatClient, _ method: String = "sendMessage", json: [UInt8]) throws -> ServiceHarness.Reply {
        let service = try service
        let nsid = ChatAPI.nsid(method)
        let token = try client.api.token(nsid)
        return try service.call(nsid, rawBody: json, headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")])
    }

    func testSignaturesMustCoverTheExactCanonicalTranscript() throws {
        let (alice, _, conversation) = try pair()
        let entries = try count("chat_entries")
        let body = try sendBody(alice, conversation)
        let canonical = SignedRequest.sign(body, kind: .applicationSend, key: alice.device.key)

        // Signed under another domain.
        let otherDomain = alice.device.key.signature(for: Array(SignedMutationKind.typing.domain.utf8) + canonical.canonicalBody)
        XCTAssertEqual(refusal(401) { try alice.api.signed("sendMessage", SignedRequest(kind: .applicationSend, body: body, signature: otherDomain)) },
                       "InvalidSignature")

        // Signed over a non-canonical encoding of the same body (map keys in another order).
        var reordered: [UInt8] = []
        if case .map(let members) = body.dagCBOR(.signing) {
            reordered = [0xA0 | UInt8(members.count)]
            for key in members.keys.sorted(by: >) {
                reordered += DAGCBOR.encode(.text(key)) + DAGCBOR.encode(members[key]!)
            }
        }
        XCTAssertNotEqual(reordered, canonical.canonicalBody)
        let nonCanonical = alice.device.key.signature(for: Array(SignedMutationKind.applicationSend.domain.utf8) + reordered)
        XCTAssertEqual(refusal(401) { try alice.api.signed("sendMessage", SignedRequest(kind: .applicationSend, body: body, signature: nonCanonical)) },
                       "InvalidSignature")

        // One byte of the signed JSON changed after signing (the last digit of signedAt's milliseconds).
        let signedAt = try XCTUnwrap(body["signedAt"]?.text)
        let last = signedAt.dropLast().last!
        let changed = String(signedAt.dropLast(2)) + (last == "0" ? "1" : "0") + "Z"
        var text = String(decoding: ChatJSON.render(canonical.input(for: ChatAPI.nsid("sendMessage"))), as: UTF8.self)
        text = text.replacingOccurrences(of: signedAt, with: changed)
        let reply = try post(alice, json: Array(text.utf8))
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.error, "InvalidSignature")
        XCTAssertEqual(try count("chat_entries"), entries)
    }

    func testAReplayReturnsTheStoredAnswerAndAChangedOneConflicts() throws {
        let (alice, _, conversation) = try pair()
        let messageID = ChatUUID.random()
        let body = try sendBody(alice, conversation, messageID: messageID)
        let request = SignedRequest.sign(body, kind: .applicationSend, key: alice.device.key)
        let first = try post(alice, json: ChatJSON.render(request.input(for: ChatAPI.nsid("sendMessage"))))
        XCTAssertEqual(first.status, 200)
        let again = try post(alice, json: ChatJSON.render(request.input(for: ChatAPI.nsid("sendMessage"))))
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.body, first.body, "an exact replay gets the stored response byte for byte")
        let entries = try count("chat_entries")

        // The same message id with other bytes, properly signed.
        let other = SignedRequest.sign(try sendBody(alice, conversation, messageID: messageID), kind: .applicationSend, key: alice.device.key)
        XCTAssertEqual(refusal(400) { try alice.api.signed("sendMessage", other) }, "IdempotencyConflict")
        XCTAssertEqual(try count("chat_entries"), entries)
    }

    func testTheDeviceBindingIsChecked() throws {
        let (alice, bob, conversation) = try pair()
        let entries = try count("chat_entries")
        let body = try sendBody(alice, conversation)

        // A stale authGeneration.
        var stale = body.members!
        stale["authGeneration"] = .integer(2)
        XCTAssertEqual(refusal(401) { try alice.api.signed("sendMessage", SignedRequest.sign(.object(stale), kind: .applicationSend, key: alice.device.key)) },
                       "DeviceBindingMismatch")

        // Another device's keyId, signed with that other key.
        var foreign = body.members!
        foreign["keyId"] = .text(bob.device.keyID)
        XCTAssertEqual(refusal(401) { try alice.api.signed("sendMessage", SignedRequest.sign(.object(foreign), kind: .applicationSend, key: bob.device.key)) },
                       "DeviceBindingMismatch")

        // Another account's device id under this account's token.
        var impostor = body.members!
        impostor["actorDid"] = .text(bob.device.did.rawValue)
        XCTAssertEqual(refusal(401) { try alice.api.signed("sendMessage", SignedRequest.sign(.object(impostor), kind: .applicationSend, key: alice.device.key)) },
                       "NotAuthorized")

        // An unknown device.
        let (stranger, _) = try device(of: nil)
        XCTAssertEqual(refusal(401) { try stranger.query("getOwnDevices") }, "DeviceNotRegistered")
        XCTAssertEqual(try count("chat_entries"), entries)
    }

    func testARevokedDeviceIsRefused() throws {
        let (alice, _, conversation) = try pair()
        try alice.revoke(alice.device.deviceID, generation: 1)
        XCTAssertEqual(refusal(401) { try alice.send(conversation, text: "after revocation") }, "DeviceRevoked")
    }

    func testAnAddWithoutARecoveryRequestIsRefused() throws {
        let (alice, _, conversation) = try pair()
        let (carol, _) = try enrolled()
        // carol's KeyPackage, as if alice had obtained it: an Add in an ordinary commit.
        let bundle = try KeyPackageBundle.generate(suite: carol.suite, credential: carol.device.credential, signingKey: carol.device.signingKey,
                                                   lifetime: Lifetime(notBefore: 0, notAfter: UInt64(Date().timeIntervalSince1970) + 86_400))
        let prior = try alice.coordinates(conversation)
        let membership = try XCTUnwrap(alice.conversations[conversation])
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let commit = try membership.group.commit(proposals: [.add(bundle.keyPackage)], includePending: false,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = alice.nextCoordinates(prior, group: commit.group, tag: commit.groupInfo.confirmationTag)
        let state = try alice.state(conversation)
        let before = try count("chat_entries")
        XCTAssertEqual(refusal(400) {
            try alice.signed("submitTransition", .commitTransition, [
                "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
                "manifest": .object(["participantChanges": .array([]), "leafChanges": .array([])]),
                "commit": ChatClient.commitArtifact(commit.commit.encoded()), "metadataSnapshot": state["metadataSnapshot"]!,
            ])
        }, "InvalidCommit")
        XCTAssertEqual(try count("chat_entries"), before)
    }

    func testAFulfilmentCarriesExactlyOneWelcome() throws {
        let (alice, _, bobIdentity, conversation) = try pairWithIdentity()
        let (bob2, _) = try enrolled(bobIdentity)
        try bob2.requestLeaf(conversation)
        let request = try recovery(for: bob2, in: conversation, seenBy: alice)
        // Two deliveries in the bundle: the lexicon allows one.
        let inputs = try captureFulfilment(alice, request)
        var doubled = inputs
        if case .object(var manifest) = inputs["manifest"]!, case .object(var bundle) = manifest["welcomeBundle"]!,
           case .array(let deliveries) = bundle["deliveries"]! {
            bundle["deliveries"] = .array(deliveries + deliveries)
            manifest["welcomeBundle"] = .object(bundle)
            doubled["manifest"] = .object(manifest)
        }
        let before = try count("chat_welcomes")
        XCTAssertEqual(refusal(400) { try alice.signed("submitTransition", .leafRecoveryFulfillment, doubled) }, "InvalidRequest")
        XCTAssertEqual(try count("chat_welcomes"), before)
    }

    func testStaleCoordinatesAreRefusedAndSpendTheMessageID() throws {
        let (alice, bob, conversation) = try pair()
        let prior = try alice.coordinates(conversation)
        try bob.rotate(conversation)
        let entries = try count("chat_entries")
        let body = try sendBody(alice, conversation, prior: prior)
        let request = SignedRequest.sign(body, kind: .applicationSend, key: alice.device.key)
        XCTAssertEqual(refusal(400) { try alice.api.signed("sendMessage", request) }, "StaleCoordinates")
        XCTAssertEqual(refusal(400) { try alice.api.signed("sendMessage", request) }, "StaleCoordinates", "the same attempt gets the same answer")
        XCTAssertEqual(try count("chat_entries"), entries)
    }

    func testAReaderSeesNothingFromBeforeItJoined() throws {
        let (alice, bob, conversation) = try pair()
        try alice.send(conversation, text: "before carol")
        let (carol, carolIdentity) = try enrolled()
        _ = carolIdentity
        XCTAssertEqual(refusal(400) { try carol.query("getEntries", [("conversationId", conversation.description), ("afterSeq", "0"), ("limit", "100")]) },
                       "NotEntitled")
        _ = bob
    }

    func testTicketsNeedTheWholeInventoryAndWorkOnce() throws {
        let (alice, _, _) = try pair()
        let first = try alice.query("getConversations", [("limit", "50")])
        let session = try XCTUnwrap(first["inventorySessionId"]?.text), cursor = try XCTUnwrap(first["snapshotEventCursor"]?.text)
        let ticketInput = ChatValue.object(["actorDeviceId": .text(alice.device.deviceID.description), "inventorySessionId": .text(session),
                                            "eventCursor": .text(cursor)])
        XCTAssertEqual(refusal(400) { try alice.api.procedure("getSubscriptionTicket", ticketInput) }, "InventoryIncomplete")

        let inventory = try alice.inventory()
        let ticket = try alice.ticket(inventory)
        let service = try service
        _ = try ChatEventStream(baseURL: service.baseURL, ticket: ticket, cursor: inventory.cursor)
        XCTAssertThrowsError(try ChatEventStream(baseURL: service.baseURL, ticket: ticket, cursor: inventory.cursor)) { error in
            guard case ChatEventStream.StreamError.refused(let status, let body) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(status, 400)
            XCTAssertTrue(body.contains("InvalidTicket"), body)
        }
    }

    func testStrictJSONIsEnforced() throws {
        let (alice, _, conversation) = try pair()
        let request = SignedRequest.sign(try sendBody(alice, conversation), kind: .applicationSend, key: alice.device.key)
        let good = String(decoding: ChatJSON.render(request.input(for: ChatAPI.nsid("sendMessage"))), as: UTF8.self)
        let device = alice.device.deviceID.description
        let entries = try count("chat_entries")
        for (what, text) in [
            ("an unknown field", good.replacingOccurrences(of: "\"blobBindings\":[]", with: "\"blobBindings\":[],\"x\":1")),
            ("a null", good.replacingOccurrences(of: "\"blobBindings\":[]", with: "\"blobBindings\":null")),
            ("a float", good.replacingOccurrences(of: "\"authGeneration\":1", with: "\"authGeneration\":1.0")),
            ("an uppercase UUID", good.replacingOccurrences(of: device, with: device.uppercased())),
        ] {
            let reply = try post(alice, json: Array(text.utf8))
            XCTAssertEqual(reply.status, 400, what)
            XCTAssertEqual(reply.error, "InvalidRequest", "\(what): \(reply.json)")
        }
        XCTAssertEqual(try count("chat_entries"), entries)
    }

    /// The inputs of a fulfilment of `request` by `client`, built as `ChatClient.fulfil` would, not sent.
    func captureFulfilment(_ client: ChatClient, _ request: ChatValue) throws -> [String: ChatValue] {
        let conversation = try XCTUnwrap(request["conversationId"]?.uuid)
        let prior = try client.coordinates(conversation)
        let membership = try XCTUnwrap(client.conversations[conversation])
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: try XCTUnwrap(request["reservation"]?["keyPackage"]?["bytes"]?.bytes)).body else {
            throw MLSClientError.invalidServerData("the reserved KeyPackage is not one")
        }
        let transition = ChatUUID.random(), requestID = try XCTUnwrap(request["recoveryRequestId"]?.uuid)
        let ref = try XCTUnwrap(request["reservation"]?["keyPackageRef"]?.bytes)
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(proposals: [.add(keyPackage)], includePending: false,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = client.nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        let welcome = try XCTUnwrap(output.welcome).encoded()
        let did = try XCTUnwrap(request["requesterDid"]?.text), device = try XCTUnwrap(request["requesterDeviceId"]?.uuid)
        let delivery = ChatValue.object(["recipientDid": .text(did), "recipientDeviceId": .uuid(device),
                                         "provenance": .object(["recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])])
        return [
            "recoveryRequestId": .uuid(requestID), "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object([
                "participantChanges": .array([]),
                "leafChanges": .array([.tagged("addLeafByRecovery", ["userDid": .text(did), "deviceId": .uuid(device),
                                                                     "recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])]),
                "welcomeBundle": .object(["welcomeId": .uuid(.random()), "framing": .text("mlsMessage"), "contentType": .text("welcome"),
                                          "opaqueWelcome": .bytes(welcome), "sha256": .bytes(HashAlgorithm.sha256.hash(welcome)),
                                          "deliveries": .array([delivery])]),
                "leafRecoveryRequestId": .uuid(requestID),
            ]),
            "commit": ChatClient.commitArtifact(output.commit.encoded()),
            "metadataSnapshot": try client.state(conversation)["metadataSnapshot"]!,
        ]
    }
}

/// Query parameters are read against their lexicon as strictly as bodies.
final class ChatQueryParameterTests: ChatContractTestCase {
    func testParametersFollowTheLexicon() throws {
        let (alice, _) = try enrolled()
        let id = ChatUUID.random().description
        for (what, parameters) in [
            ("a missing required limit", [("conversationId", id), ("afterSeq", "0")]),
            ("an unknown parameter", [("conversationId", id), ("afterSeq", "0"), ("limit", "10"), ("extra", "1")]),
            ("a negative integer", [("conversationId", id), ("afterSeq", "-1"), ("limit", "10")]),
            ("a limit past its maximum", [("conversationId", id), ("afterSeq", "0"), ("limit", "101")]),
            ("a repeated parameter", [("conversationId", id), ("afterSeq", "0"), ("afterSeq", "1"), ("limit", "10")]),
            ("a leading zero", [("conversationId", id), ("afterSeq", "01"), ("limit", "10")]),
        ] {
            XCTAssertEqual(refusal(400) { try alice.query("getEntries", parameters) }, "InvalidRequest", what)
        }
        XCTAssertEqual(refusal(400) { try alice.query("getEntries", [("conversationId", id), ("afterSeq", "0"), ("limit", "10")]) },
                       "ConversationNotFound")
    }
}
