import DeliveryStore
import Foundation
import Store
import XCTest

final class StorageTests: StoreTestCase {
    func test_register_thenRead_thenReplace() throws {
        XCTAssertNil(try store.storage(did: user("alice")))
        let first = try store.registerStorage(did: user("alice"), provider: StorageProvider(
            type: .cloudkit, config: ["container": "iCloud.blue.catbird", "zone": "mls"]))
        XCTAssertEqual(first.provider.type, .cloudkit)
        XCTAssertEqual(try store.storage(did: user("alice")), first)

        let second = try store.registerStorage(did: user("alice"), provider: StorageProvider(
            type: .s3, endpoint: "https://s3.example.com", config: ["bucket": "b"]))
        let read = try XCTUnwrap(try store.storage(did: user("alice")))
        XCTAssertEqual(read, second)
        XCTAssertEqual(read.provider, StorageProvider(type: .s3, endpoint: "https://s3.example.com", config: ["bucket": "b"]))
        XCTAssertGreaterThanOrEqual(read.registeredAt, first.registeredAt)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM user_storage"), 1)
        XCTAssertNil(try store.storage(did: user("bob")))
    }

    func test_configWithQuotesAndUnicode_roundTrips() throws {
        let config = ["path": "a \"quoted\" \\ value", "名前": "ü\n"]
        _ = try store.registerStorage(did: user("alice"), provider: StorageProvider(type: .gdrive, config: config))
        XCTAssertEqual(try store.storage(did: user("alice"))?.provider.config, config)
    }

    func test_tableChecks_rejectOversizedValues() throws {
        let huge = ["k": String(repeating: "x", count: 9000)]
        guard case .database = deliveryError({ try store.registerStorage(did: user("alice"), provider: StorageProvider(type: .s3, config: huge)) }) else {
            return XCTFail("an oversized config must be refused by the table")
        }
        let longEndpoint = "https://" + String(repeating: "e", count: 600)
        guard case .database = deliveryError({ try store.registerStorage(did: user("alice"), provider: StorageProvider(type: .s3, endpoint: longEndpoint)) }) else {
            return XCTFail("an oversized endpoint must be refused by the table")
        }
        XCTAssertNil(try store.storage(did: user("alice")))
    }

    func test_recipients_areCurrentMembersButTheSender_withTheirStorage() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol"), leaf(3, "bob", device: "ipad")])
        _ = try store.registerStorage(did: user("bob"), provider: StorageProvider(type: .firestore, config: ["project": "p"]))
        _ = try store.registerStorage(did: user("alice"), provider: StorageProvider(type: .cloudkit))
        let recipients = try store.recipients(convoID: convo, excluding: user("alice"))
        XCTAssertEqual(recipients, [
            MessageRecipient(did: did("bob"), storage: StorageProvider(type: .firestore, config: ["project": "p"])),
            MessageRecipient(did: did("carol"), storage: nil),
        ])

        // Carol leaves: she is no longer a recipient.
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob"), leaf(3, "bob", device: "ipad")],
                                         departures: [2: .left]))
        XCTAssertEqual(try store.recipients(convoID: convo, excluding: user("bob")).map(\.did), [did("alice")])
        XCTAssertEqual(try store.recipients(convoID: convo, excluding: user("alice")).map(\.did), [did("bob")])
    }
}
