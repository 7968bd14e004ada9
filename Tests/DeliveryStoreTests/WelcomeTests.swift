import DeliveryStore
import Foundation
import Store
import XCTest

final class WelcomeTests: StoreTestCase {
    private func addBob(_ convo: String, from epoch: Int64, welcome: [UInt8]) throws {
        let application = commit(convo, from: epoch, members: [leaf(0, "alice"), leaf(1, "bob")],
                                 welcomes: [WelcomeDelivery(recipientDID: did("bob"), welcome: welcome)])
        _ = try store.applyCommit(application)
    }

    func test_fetchDoesNotConsume_confirmCloses() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        XCTAssertEqual(deliveryError { try store.welcome(convoID: convo, recipient: user("bob")) }, .welcomeNotFound)
        try addBob(convo, from: 0, welcome: [0x01])
        let fetched = try store.welcome(convoID: convo, recipient: user("bob"))
        XCTAssertEqual(fetched.welcome, [0x01])
        XCTAssertEqual(fetched.epoch, 1)
        XCTAssertEqual(fetched.recipientDID, did("bob"))
        XCTAssertEqual(try store.welcome(convoID: convo, recipient: user("bob")), fetched, "fetching does not consume")
        XCTAssertEqual(deliveryError { try store.welcome(convoID: convo, recipient: user("alice")) }, .welcomeNotFound)

        XCTAssertTrue(try store.confirmWelcome(convoID: convo, recipient: user("bob"), success: true))
        XCTAssertFalse(try store.confirmWelcome(convoID: convo, recipient: user("bob"), success: true), "nothing left open")
        XCTAssertEqual(deliveryError { try store.welcome(convoID: convo, recipient: user("bob")) }, .welcomeNotFound)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM welcomes WHERE confirmed_at IS NOT NULL"), 1)
    }

    func test_failedConfirmation_recordsDetails() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        try addBob(convo, from: 0, welcome: [0x01])
        XCTAssertTrue(try store.confirmWelcome(convoID: convo, recipient: user("bob"), success: false,
                                               errorDetails: "no matching key package"))
        let row = try fixture.database.query("SELECT failed_at, confirmed_at, error_details FROM welcomes")[0]
        XCTAssertNotNil(try row.optionalDate("failed_at"))
        XCTAssertNil(try row.optionalDate("confirmed_at"))
        XCTAssertEqual(try row.optionalString("error_details"), "no matching key package")
        XCTAssertEqual(deliveryError { try store.welcome(convoID: convo, recipient: user("bob")) }, .welcomeNotFound)
    }

    func test_removedRecipient_isStale_andReAddGivesTheNewWelcome() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        try addBob(convo, from: 0, welcome: [0x01])
        _ = try store.applyCommit(commit(convo, from: 1, members: [leaf(0, "alice")]))
        XCTAssertEqual(deliveryError { try store.welcome(convoID: convo, recipient: user("bob")) }, .welcomeStale)
        try addBob(convo, from: 2, welcome: [0x02])
        let fresh = try store.welcome(convoID: convo, recipient: user("bob"))
        XCTAssertEqual(fresh.welcome, [0x02])
        XCTAssertEqual(fresh.epoch, 3)
    }
}
