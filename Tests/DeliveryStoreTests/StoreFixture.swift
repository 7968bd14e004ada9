import Basics
import DeliveryStore
import Foundation
import Store
import Synchronization
import TestSupport
import XCTest

/// A DeliveryStore on a fresh schema (`TestDatabase`) with the repository's migrations applied,
/// dropped afterwards, so tests never see each other's rows.
final class StoreFixture {
    let namespace: TestDatabase
    let store: DeliveryStore
    var url: String { namespace.url }
    var schema: String { namespace.name }
    var database: Database { namespace.database }

    init(poolSize: Int = 10, configuration: DeliveryStore.Configuration = .init()) throws {
        namespace = try TestDatabase(.schema, prefix: "dstest", poolSize: poolSize, migrate: true)
        store = DeliveryStore(database: namespace.database, configuration: configuration)
    }

    func drop() { namespace.drop() }

    /// Polls (bounded, about 10 s) until some backend waits on a lock in a statement whose text
    /// (its first 1 KB, as pg_stat_activity keeps it) contains `text`; false if none did.
    func sawALockWait(inStatementWith text: String) throws -> Bool {
        for _ in 0..<2000 {
            let waiting = try database.query("""
                SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND strpos(query, $1) > 0
                """, [text])[0].int("n") > 0
            if waiting { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// One integer from a SQL query, e.g. a count.
    func count(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws -> Int {
        try database.query(sql, parameters)[0].int(0)
    }
}

/// A base class that gives each test its own schema and store.
class StoreTestCase: XCTestCase {
    var fixture: StoreFixture!
    var store: DeliveryStore { fixture.store }
    var configuration: DeliveryStore.Configuration { .init() }

    override func setUpWithError() throws {
        fixture = try StoreFixture(configuration: configuration)
    }

    override func tearDown() {
        fixture?.drop()
        fixture = nil
    }

    // MARK: Builders

    /// A valid did:plc for a test user: the name (letters only), `2`, then `a`s to 24 characters.
    func did(_ name: String) -> String {
        precondition(name.count < 24 && name.allSatisfy { $0 >= "a" && $0 <= "z" })
        return "did:plc:" + name + "2" + String(repeating: "a", count: 23 - name.count)
    }

    /// The same user as the DID callers pass to the store.
    func user(_ name: String) -> DID { try! DID(did(name)) }

    func leaf(_ index: UInt32, _ name: String, device: String? = nil) -> MemberLeaf {
        let identity = did(name) + (device.map { "#" + $0 } ?? "")
        return MemberLeaf(leafIndex: index, credentialIdentity: identity, credential: Array("cred:\(identity)".utf8))
    }

    func randomGroupID() -> [UInt8] { (0..<16).map { _ in UInt8.random(in: 0...255) } }

    /// Creates a conversation at `epoch` whose members are `leaves` (creator `alice` unless given).
    @discardableResult
    func makeConvo(_ leaves: [MemberLeaf], creator: String = "alice", epoch: Int64 = 0,
                   name: String? = nil) throws -> String {
        let creation = ConvoCreation(groupID: randomGroupID(), cipherSuite: 1, epoch: epoch,
                                     publicState: Array("state-\(epoch)".utf8), groupInfo: Array("gi-\(epoch)".utf8),
                                     creatorDID: user(creator), name: name, members: leaves)
        return try store.createConvo(creation).convo.convoID
    }

    func commit(_ convoID: String, from epoch: Int64, sender: String = "alice", members: [MemberLeaf],
                departures: [UInt32: DepartureReason] = [:], keyPackages: [KeyPackageUse] = [],
                welcomes: [WelcomeDelivery] = [], covered: [[UInt8]] = [],
                bytes: [UInt8]? = nil) -> CommitApplication {
        CommitApplication(convoID: convoID, commitEpoch: epoch, newPublicState: Array("state-\(epoch + 1)".utf8),
                          newGroupInfo: Array("gi-\(epoch + 1)".utf8), commit: bytes ?? Array("commit-\(epoch)".utf8),
                          senderDID: user(sender), members: members, departures: departures,
                          consumedKeyPackages: keyPackages, welcomes: welcomes, coveredProposalRefs: covered)
    }

    func message(_ convoID: String, _ msgID: String = UUID().uuidString, epoch: Int64 = 0,
                 sender: String = "alice", bytes: [UInt8] = [1, 2, 3]) -> NewMessage {
        NewMessage(convoID: convoID, msgID: msgID, epoch: epoch, senderDID: user(sender), content: .ciphertext(bytes))
    }

    func keyPackage(_ owner: String, suite: UInt16 = 1, ref: [UInt8]? = nil,
                    expiresIn: TimeInterval = 86_400) -> NewKeyPackage {
        let ref = ref ?? (0..<32).map { _ in UInt8.random(in: 0...255) }
        return NewKeyPackage(ownerDID: user(owner), cipherSuite: suite, keyPackage: Array("kp:".utf8) + ref, ref: ref,
                             credentialIdentity: did(owner), expiresAt: Date().addingTimeInterval(expiresIn))
    }
}

/// The DeliveryStoreError thrown by `body`, or nil (with a failure) if it threw nothing or another error.
func deliveryError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> DeliveryStoreError? {
    do {
        _ = try body()
        XCTFail("expected a DeliveryStoreError, nothing was thrown", file: file, line: line)
        return nil
    } catch let error as DeliveryStoreError {
        return error
    } catch {
        XCTFail("expected a DeliveryStoreError, got \(error)", file: file, line: line)
        return nil
    }
}
