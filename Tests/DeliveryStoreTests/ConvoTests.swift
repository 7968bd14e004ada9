import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class ConvoTests: StoreTestCase {
    func test_createConvo_storesEverythingInOneGo() throws {
        let bob = keyPackage("bob"), carol = keyPackage("carol")
        _ = try store.publishKeyPackage(bob)
        _ = try store.publishKeyPackage(carol)
        let groupID: [UInt8] = [0xde, 0xad, 0x01]
        let welcome: [UInt8] = [0x77, 0x77]
        let creation = ConvoCreation(
            groupID: groupID, cipherSuite: 3, epoch: 1, publicState: [1, 2], groupInfo: [3, 4], creatorDID: user("alice"),
            name: "Plans", description: "weekend", members: [leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")],
            consumedKeyPackages: [KeyPackageUse(ref: bob.ref, ownerDID: did("bob")),
                                  KeyPackageUse(ref: carol.ref, ownerDID: did("carol"))],
            welcomes: [WelcomeDelivery(recipientDID: did("bob"), welcome: welcome, keyPackageRef: bob.ref),
                       WelcomeDelivery(recipientDID: did("carol"), welcome: welcome, keyPackageRef: carol.ref)],
            initialCommit: [0xc0])
        let created = try store.createConvo(creation)
        XCTAssertEqual(created.convo.convoID, "dead01")
        XCTAssertEqual(created.convo.groupID, groupID)
        XCTAssertEqual(created.convo.cipherSuite, 3)
        XCTAssertEqual(created.convo.epoch, 1)
        XCTAssertEqual(created.convo.publicState, [1, 2])
        XCTAssertEqual(created.convo.currentGroupInfo, [3, 4])
        XCTAssertEqual(created.convo.creatorDID, did("alice"))
        XCTAssertEqual(created.convo.name, "Plans")
        XCTAssertEqual(created.convo.description, "weekend")
        XCTAssertEqual(created.convo.lastSeq, 1)
        XCTAssertEqual(created.convo.handshake, .public, "the default policy")
        XCTAssertEqual(created.members.map(\.did), [did("alice"), did("bob"), did("carol")])
        XCTAssertEqual(created.members.map(\.isAdmin), [true, false, false])
        XCTAssertEqual(created.members.map(\.joinedEpoch), [1, 1, 1])
        XCTAssertEqual(try store.loadConvo("dead01"), created.convo)

        XCTAssertNotNil(try store.keyPackage(ref: bob.ref)?.consumedAt)
        XCTAssertEqual(try store.keyPackage(ref: carol.ref)?.consumedInConvo, "dead01")
        XCTAssertEqual(try store.welcome(convoID: "dead01", recipient: user("carol")).welcome, welcome)
        let commits = try store.commits(convoID: "dead01", fromEpoch: 0)
        XCTAssertEqual(commits.map(\.epoch), [0])
        XCTAssertEqual(commits.map(\.commit), [[0xc0]])
        XCTAssertEqual(try store.messages(convoID: "dead01").messages.map(\.msgID), ["commit-0"])
        let events = try store.events(convoID: "dead01")
        XCTAssertEqual(events.map(\.kind), [.messageEvent, .membershipChangeEvent, .membershipChangeEvent,
                                            .membershipChangeEvent])
        XCTAssertEqual(events.map(\.seq), [1, 2, 3, 4])
    }

    func test_createConvo_rejectsDuplicatesAndBadInput_writingNothing() throws {
        let groupID: [UInt8] = [0x01, 0x02]
        let creation = ConvoCreation(groupID: groupID, cipherSuite: 1, epoch: 0, publicState: [0], groupInfo: nil,
                                     creatorDID: user("alice"), members: [leaf(0, "alice")])
        _ = try store.createConvo(creation)
        XCTAssertEqual(deliveryError { try store.createConvo(creation) }, .convoAlreadyExists)

        var noCreator = creation
        noCreator.groupID = [0x03]
        noCreator.members = [leaf(0, "bob")]
        XCTAssertEqual(deliveryError { try store.createConvo(noCreator) }, .invalidArgument("the creator holds no leaf"))
        var emptyGroupID = creation
        emptyGroupID.groupID = []
        XCTAssertEqual(deliveryError { try store.createConvo(emptyGroupID) },
                       .invalidArgument("group_id must be 1…255 bytes"))
        var missingPackage = creation
        missingPackage.groupID = [0x04]
        missingPackage.members = [leaf(0, "alice"), leaf(1, "bob")]
        missingPackage.consumedKeyPackages = [KeyPackageUse(ref: [0xff], ownerDID: did("bob"))]
        XCTAssertEqual(deliveryError { try store.createConvo(missingPackage) }, .keyPackageNotFound(ref: [0xff]))
        XCTAssertEqual(deliveryError { try store.loadConvo("04") }, .convoNotFound)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM convos"), 1)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM members"), 1)

        // Concurrent creations of one group: one wins.
        let results = Locked<[DeliveryStoreError?]>([])
        let shared = store
        var racing = creation
        racing.groupID = [0x05]
        let race = racing
        runOnThreads(4) { _ in
            do {
                _ = try shared.createConvo(race)
                results.withLock { $0.append(nil) }
            } catch {
                results.withLock { $0.append(error as? DeliveryStoreError ?? .invalidArgument("\(error)")) }
            }
        }
        XCTAssertEqual(results.value.filter { $0 == nil }.count, 1)
        XCTAssertEqual(results.value.compactMap { $0 }, Array(repeating: .convoAlreadyExists, count: 3))
    }

    func test_listConvos_pagesByActivity_withAnOpaqueCursor() throws {
        var ids: [String] = []
        for index in 0..<7 {
            ids.append(try makeConvo([leaf(0, "alice"), leaf(1, "bob")], name: "c\(index)"))
        }
        _ = try makeConvo([leaf(0, "carol")], creator: "carol")
        // Activity moves c2 and then c5 to the front.
        _ = try store.appendMessage(message(ids[2]))
        _ = try store.appendMessage(message(ids[5]))
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try store.listConvos(for: user("bob"), limit: 3, cursor: cursor)
            seen += page.convos.map(\.convo.convoID)
            XCTAssertTrue(page.convos.allSatisfy { $0.members.map(\.did) == [did("alice"), did("bob")] })
            cursor = page.cursor
            pages += 1
        } while cursor != nil && pages < 10
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(seen, [ids[5], ids[2], ids[6], ids[4], ids[3], ids[1], ids[0]])

        // The last page has no cursor; an exact multiple of the limit ends the same way.
        XCTAssertNil(try store.listConvos(for: user("bob"), limit: 7).cursor)
        XCTAssertEqual(try store.listConvos(for: user("carol")).convos.count, 1)
        XCTAssertEqual(try store.listConvos(for: user("nobody")).convos, [])

        for bad in ["", "garbage!", "djEgMTIz", "dj IgMSBhYg"] {
            XCTAssertEqual(deliveryError { try store.listConvos(for: user("bob"), cursor: bad) }, .invalidCursor, bad)
        }

        // A removed member no longer lists the conversation.
        _ = try store.applyCommit(commit(ids[5], from: 0, members: [leaf(0, "alice")]))
        XCTAssertFalse(try store.listConvos(for: user("bob"), limit: 100).convos.map(\.convo.convoID).contains(ids[5]))
    }

    func test_updateGroupInfo_requiresTheCurrentEpoch() throws {
        let convo = try makeConvo([leaf(0, "alice")], epoch: 2)
        XCTAssertEqual(deliveryError { try store.updateGroupInfo(convoID: convo, epoch: 1, groupInfo: [1]) },
                       .epochMismatch(current: 2))
        try store.updateGroupInfo(convoID: convo, epoch: 2, groupInfo: [0x61])
        let state = try store.loadConvo(convo)
        XCTAssertEqual(state.groupInfo, [0x61])
        XCTAssertEqual(state.groupInfoEpoch, 2)
        XCTAssertEqual(deliveryError { try store.updateGroupInfo(convoID: "ff", epoch: 0, groupInfo: [1]) }, .convoNotFound)
    }

    func test_createConvo_keepsTheHandshakePolicy() throws {
        for policy in ConvoHandshake.allCases {
            let creation = ConvoCreation(groupID: randomGroupID(), cipherSuite: 1, epoch: 1, publicState: [1], groupInfo: [2],
                                         creatorDID: user("alice"), members: [leaf(0, "alice")], handshake: policy)
            XCTAssertEqual(try store.createConvo(creation).convo.handshake, policy)
            XCTAssertEqual(try store.loadConvo(creation.convoID).handshake, policy)
            XCTAssertEqual(try store.listConvos(for: user("alice")).convos.first { $0.convo.convoID == creation.convoID }?.convo.handshake,
                           policy)
        }
    }

    func test_convoID_isLowercaseHexOfTheGroupID() {
        XCTAssertEqual(DeliveryStore.convoID(forGroupID: [0x00, 0xab, 0xff, 0x10]), "00abff10")
        XCTAssertEqual(DeliveryStore.convoID(forGroupID: []), "")
    }

    /// Migration 0014: messages and events hold no foreign key to convos (each writer locks the
    /// conversation's row first), and a statement trigger deletes a conversation's log with it.
    func test_deletingAConvo_deletesItsMessagesAndEvents_andLeavesOthers() throws {
        let gone = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let kept = try makeConvo([leaf(0, "alice"), leaf(1, "carol")])
        for convo in [gone, kept] {
            _ = try store.appendMessage(message(convo, sender: "alice"))
            let batch = store.appendMessages([BatchedMessage(message(convo, sender: "alice"), replay: nil),
                                              BatchedMessage(message(convo, sender: convo == gone ? "bob" : "carol"), replay: nil)])
            XCTAssertEqual(batch.compactMap { try? $0.result.get().seq }, [2, 3])
        }
        let keptMessages = try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1", [kept])
        let keptEvents = try fixture.count("SELECT count(*) FROM events WHERE convo_id = $1", [kept])
        XCTAssertGreaterThan(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1", [gone]), 0)

        _ = try fixture.database.execute("DELETE FROM convos WHERE convo_id = $1", [gone])
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1", [gone]), 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM events WHERE convo_id = $1", [gone]), 0)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1", [kept]), keptMessages)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM events WHERE convo_id = $1", [kept]), keptEvents)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(gone, sender: "alice")) }, .convoNotFound)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE convo_id = $1", [gone]), 0)
    }
}
