import Basics
import DeliveryStore
import Foundation
import Store
import Synchronization
import XCTest

/// A DeliveryStore on a fresh schema (via `search_path`) with the repository's migrations applied,
/// dropped afterwards, so tests never see each other's rows.
final class StoreFixture {
    static let migrations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("migrations").resolvingSymlinksInPath()

    let url: String
    let schema: String
    let database: Database
    let store: DeliveryStore
    private let admin: Database

    static func baseURL() throws -> String {
        guard let base = ProcessInfo.processInfo.environment["DATABASE_URL"], !base.isEmpty else {
            let message = "DATABASE_URL is not set: run `scripts/pg.sh start .data/pg` and export the URL it prints"
            XCTFail(message)
            throw DeliveryStoreError.invalidArgument(message)
        }
        return base
    }

    /// The base URL as a key=value string whose sessions use `schema`.
    static func url(_ base: String, schema: String) -> String {
        "\(base.contains("?") ? base + "&" : base + "?")options=-c%20search_path%3D\(schema)"
    }

    init(poolSize: Int = 10, configuration: DeliveryStore.Configuration = .init()) throws {
        let base = try Self.baseURL()
        schema = "dstest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        admin = try Database(url: base, poolSize: 1)
        try admin.execute("CREATE SCHEMA \(schema)")
        url = Self.url(base, schema: schema)
        database = try Database(url: url, poolSize: poolSize)
        try Migrator(directory: Self.migrations).migrate(database)
        store = DeliveryStore(database: database, configuration: configuration)
    }

    func drop() {
        database.close()
        _ = try? admin.execute("DROP SCHEMA \(schema) CASCADE")
        admin.close()
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

/// A value shared between test threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}

/// Runs `body(0)`, …, `body(count - 1)` on separate threads, released together, and waits for all.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        Thread {
            start.wait()
            body(index)
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}
