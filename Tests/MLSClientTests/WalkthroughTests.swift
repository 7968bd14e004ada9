import ArgumentParser
@testable import catbird_mls
import Foundation
import MLS
@testable import MLSClient
import XCTest

/// The README walkthrough as a test: three users in three directories, each with its own
/// identity registered at the dev PLC, against the real delivery service and PostgreSQL.
final class WalkthroughTests: XCTestCase {
    var deployment: LocalDeployment!

    override func setUpWithError() throws { deployment = try LocalDeployment() }
    override func tearDown() { deployment?.shutdown() }

    func client(_ user: String) throws -> MLSConversationClient {
        let store = MLSClientStore(directory: URL(fileURLWithPath: deployment.directory(user)))
        let identity = try store.loadIdentity()
        let api = MLSAPIClient(configuration: .init(baseURL: deployment.serverURL, serviceDID: LocalDeployment.serviceDID),
                               tokenProvider: try identity.tokenProvider(serviceDID: LocalDeployment.serviceDID))
        return try MLSConversationClient(api: api, store: store, identity: identity)
    }

    /// alice, bob and carol: each `init` through the CLI (registering with the dev PLC); bob and carol
    /// `publish-key-packages --count 2`.
    func threeUsers() async throws -> (MLSConversationClient, MLSConversationClient, MLSConversationClient) {
        for user in ["alice", "bob", "carol"] {
            try await deployment.run(["init", "--plc", deployment.plcURL], as: user)
        }
        try await deployment.run(["publish-key-packages", "--count", "2"], as: "bob")
        try await deployment.run(["publish-key-packages", "--count", "2"], as: "carol")
        return (try client("alice"), try client("bob"), try client("carol"))
    }

    func texts(_ entries: [ChatEntry]) -> [String] { entries.filter { $0.kind == .message }.map(\.text) }

    func testThreeUsersWalkthrough() async throws {
        let (alice, bob, carol) = try await threeUsers()
        let aliceDID = await alice.did, bobDID = await bob.did, carolDID = await carol.did

        let stats = try await bob.api.getKeyPackageStats()
        XCTAssertEqual(stats.available, 2)

        // create with bob, join, invite carol, join.
        let view = try await alice.createConvo(name: "walkthrough", inviting: [bobDID])
        XCTAssertEqual(Set(view.members.map(\.did)), [aliceDID, bobDID])
        XCTAssertEqual(view.metadata?.name, "walkthrough")
        let convo = view.id
        let bobGroup = try await bob.join(convoId: convo)
        XCTAssertEqual(bobGroup.epoch, 1)
        let added = try await alice.invite(convoId: convo, dids: [carolDID])
        XCTAssertEqual(added.addedMembers, [carolDID])
        XCTAssertEqual(added.newEpoch, 2)
        _ = try await carol.join(convoId: convo)
        let bobAvailable = try await bob.api.getKeyPackageStats().available
        XCTAssertEqual(bobAvailable, 1, "one of bob's packages was consumed")

        // send and read; bob catches up with carol's addition before sending.
        _ = try await alice.send(convoId: convo, text: "hello from alice")
        try await deployment.run(["send", convo, "hi", "alice,", "bob", "here"], as: "bob")
        let carolNew = try await carol.unread(convoId: convo)
        XCTAssertEqual(texts(carolNew), ["hello from alice", "hi alice, bob here"])
        let bobSaw = try await bob.unread(convoId: convo)
        XCTAssertEqual(texts(bobSaw), ["hello from alice"])
        XCTAssertTrue(bobSaw.contains { $0.kind == .event && $0.text == "added \(carolDID)" }, "\(bobSaw)")
        let aliceNew = try await alice.unread(convoId: convo)
        XCTAssertEqual(texts(aliceNew), ["hi alice, bob here"])
        let aliceAgain = try await alice.unread(convoId: convo)
        XCTAssertEqual(aliceAgain, [], "nothing is shown twice")
        try await assertSameEpoch([alice, bob, carol], convo, epoch: 2)

        // bob loses his state and rejoins by external commit.
        try FileManager.default.removeItem(atPath: deployment.directory("bob") + "/groups/\(convo).group")
        let rejoined = try await bob.rejoin(convoId: convo)
        XCTAssertEqual(rejoined.epoch, 3)
        let aliceEvents = try await alice.read(convoId: convo).map(\.text)
        XCTAssertEqual(aliceEvents, ["rejoined"])
        _ = try await carol.read(convoId: convo)
        try await assertSameEpoch([alice, bob, carol], convo, epoch: 3)
        _ = try await bob.send(convoId: convo, text: "bob is back")
        let carolAfterRejoin = try await carol.read(convoId: convo)
        XCTAssertEqual(texts(carolAfterRejoin), ["bob is back"])

        // alice removes carol, who can then neither read nor send.
        let removal = try await alice.remove(convoId: convo, did: carolDID)
        XCTAssertEqual(removal.newEpoch, 4)
        do {
            _ = try await carol.read(convoId: convo)
            XCTFail("carol was removed")
        } catch {
            guard case .notAMember = error else { return XCTFail("got \(error)") }
        }
        do {
            _ = try await carol.send(convoId: convo, text: "still here?")
            XCTFail("carol was removed")
        } catch {}
        let bobSawRemoval = try await bob.read(convoId: convo)
        XCTAssertEqual(bobSawRemoval.map(\.text), ["removed \(carolDID)"])
        _ = try await alice.send(convoId: convo, text: "carol is gone")
        let bobNew = try await bob.read(convoId: convo)
        XCTAssertEqual(texts(bobNew), ["carol is gone"])

        // bob leaves: his removal is pending until alice (admin) commits it.
        let left = try await bob.leave(convoId: convo)
        XCTAssertTrue(left.pendingRemoval)
        do {
            _ = try await bob.read(convoId: convo)
            XCTFail("bob left")
        } catch {
            guard case .notAMember = error else { return XCTFail("got \(error)") }
        }
        _ = try await alice.remove(convoId: convo, did: bobDID)
        let convos = try await alice.convos()
        XCTAssertEqual(convos.map(\.view.id), [convo])
        XCTAssertEqual(convos.first?.view.members.map(\.did), [aliceDID])
        XCTAssertEqual(convos.first?.view.epoch, 5)
        let bobConvos = try await bob.convos().map(\.view.id)
        XCTAssertEqual(bobConvos, [])

        // The transcript kept what alice saw, in order.
        let transcript = try await alice.transcript(convoId: convo)
        XCTAssertEqual(texts(transcript), ["hello from alice", "hi alice, bob here", "bob is back", "carol is gone"])
    }

    /// The same story in a sealed conversation (`create --sealed`, issue 17): every commit and the
    /// leave request are PrivateMessages the service checks through their GroupInfos; the rejoin is
    /// an external commit, a PublicMessage. After each step the members, the service's GroupInfo
    /// and its member rows agree.
    func testSealedWalkthrough() async throws {
        let (alice, bob, carol) = try await threeUsers()
        let aliceDID = await alice.did, bobDID = await bob.did, carolDID = await carol.did

        let view = try await alice.createConvo(name: "sealed", inviting: [bobDID], sealed: true)
        XCTAssertEqual(view.handshake, "sealed")
        let convo = view.id
        _ = try await bob.join(convoId: convo)
        _ = try await alice.invite(convoId: convo, dids: [carolDID])
        _ = try await carol.join(convoId: convo)
        _ = try await alice.send(convoId: convo, text: "sealed hello")
        _ = try await bob.send(convoId: convo, text: "bob, sealed")
        let carolRead = try await carol.read(convoId: convo)
        XCTAssertEqual(texts(carolRead), ["sealed hello", "bob, sealed"])
        _ = try await alice.read(convoId: convo)
        try await assertAgree([alice, bob, carol], convo, epoch: 2)

        // bob's self-update, then bob loses his state and rejoins by external commit.
        _ = try await bob.selfUpdate(convoId: convo)
        for member in [alice, carol] { _ = try await member.read(convoId: convo) }
        try await assertAgree([alice, bob, carol], convo, epoch: 3)
        try FileManager.default.removeItem(atPath: deployment.directory("bob") + "/groups/\(convo).group")
        let rejoined = try await bob.rejoin(convoId: convo)
        XCTAssertEqual(rejoined.epoch, 4)
        for member in [alice, carol] { _ = try await member.read(convoId: convo) }
        try await assertAgree([alice, bob, carol], convo, epoch: 4)

        // alice removes carol; bob leaves with a sealed self-Remove, which alice then commits.
        _ = try await alice.remove(convoId: convo, did: carolDID)
        _ = try await bob.read(convoId: convo)
        try await assertAgree([alice, bob], convo, epoch: 5)
        let left = try await bob.leave(convoId: convo)
        XCTAssertTrue(left.pendingRemoval)
        _ = try await alice.remove(convoId: convo, did: bobDID)
        try await assertAgree([alice], convo, epoch: 6)
        let remaining = try await alice.api.getConvo(convoId: convo).members.map(\.did)
        XCTAssertEqual(remaining, [aliceDID])

        // What the service stored: sealed commits, but for the external one.
        let commits = try await alice.api.getCommits(convoId: convo, fromEpoch: 0).commits
        let sealed = commits.map { commit -> Bool in
            if case .privateMessage? = (try? MLSMessage(decoding: commit.commitData.bytes))?.body { return true }
            return false
        }
        XCTAssertEqual(commits.map(\.epoch), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(sealed, [true, true, true, false, true, true])
    }

    /// The members share the epoch's secrets; the service's GroupInfo has their tree and context, and
    /// its member rows are the tree's leaves.
    func assertAgree(_ clients: [MLSConversationClient], _ convo: String, epoch: UInt64,
                     file: StaticString = #filePath, line: UInt = #line) async throws {
        try await assertSameEpoch(clients, convo, epoch: epoch, file: file, line: line)
        let group = try clients[0].store.loadGroup(convoId: convo)
        let served = try await clients[0].api.getGroupInfo(convoId: convo)
        XCTAssertEqual(served.epoch, Int64(epoch), file: file, line: line)
        guard case .groupInfo(let info) = try MLSMessage(decoding: served.groupInfo.bytes).body else {
            return XCTFail("no GroupInfo", file: file, line: line)
        }
        let observer = try PublicGroup(groupInfo: info)
        XCTAssertEqual(observer.groupContext, group.groupContext, file: file, line: line)
        XCTAssertEqual(observer.tree, group.tree, file: file, line: line)
        let view = try await clients[0].api.getConvo(convoId: convo)
        let rows = view.members.map { "\($0.leafIndex.map(String.init) ?? "?") \($0.did)" }
        let leaves = group.members.map { "\($0.leafIndex) \(MLSConversationClient.did(of: $0.credential) ?? "?")" }
        XCTAssertEqual(rows.sorted(), leaves.sorted(), file: file, line: line)
    }

    func assertSameEpoch(_ clients: [MLSConversationClient], _ convo: String, epoch: UInt64,
                         file: StaticString = #filePath, line: UInt = #line) async throws {
        var authenticators: [[UInt8]] = []
        for client in clients {
            let group = try client.store.loadGroup(convoId: convo)
            XCTAssertEqual(group.epoch, epoch, file: file, line: line)
            authenticators.append(group.epochAuthenticator)
        }
        XCTAssertEqual(Set(authenticators).count, 1, "members disagree on the epoch", file: file, line: line)
    }

    /// bob has only a last-resort package (`publish-key-packages --last-resort`): alice and carol
    /// each add him with it, and he joins both, for the package and its private keys are kept.
    func testLastResortKeyPackage_letsTwoGroupsAddTheSameUser() async throws {
        for user in ["alice", "bob", "carol"] {
            try await deployment.run(["init", "--plc", deployment.plcURL], as: user)
        }
        try await deployment.run(["publish-key-packages", "--last-resort"], as: "bob")
        let alice = try client("alice"), bob = try client("bob"), carol = try client("carol")
        let bobDID = await bob.did
        for (creator, text) in [(alice, "from alice"), (carol, "from carol")] {
            let convo = try await creator.createConvo(inviting: [bobDID]).id
            _ = try await bob.join(convoId: convo)
            _ = try await creator.send(convoId: convo, text: text)
            let read = try await bob.read(convoId: convo)
            XCTAssertEqual(texts(read), [text])
        }
    }

    func testJoinWithoutAWelcomeAndInviteWithoutKeyPackages() async throws {
        for user in ["alice", "bob"] {
            try await deployment.run(["init", "--plc", deployment.plcURL], as: user)
        }
        let alice = try client("alice"), bob = try client("bob")
        let bobDID = await bob.did
        do {
            _ = try await alice.createConvo(inviting: [bobDID])
            XCTFail("bob has no key packages")
        } catch {
            guard case .noKeyPackage(let missing) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(missing, [bobDID])
        }
        let convo = try await alice.createConvo(name: "solo").id
        do {
            _ = try await bob.join(convoId: convo)
            XCTFail("no Welcome for bob")
        } catch {
            guard case .api(let apiError) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(apiError.status, 404)
        }
        // bob publishes, alice invites; a second invite of bob is refused before any request.
        _ = try await bob.publishKeyPackages(count: 2)
        _ = try await alice.invite(convoId: convo, dids: [bobDID])
        do {
            _ = try await alice.invite(convoId: convo, dids: [bobDID])
            XCTFail("bob is already a member")
        } catch {
            guard case .invalidArgument(let why) = error else { return XCTFail("got \(error)") }
            XCTAssertTrue(why.contains(bobDID))
        }
        _ = try await bob.join(convoId: convo)
        _ = try await bob.send(convoId: convo, text: "made it")
        let aliceReads = try await alice.read(convoId: convo)
        XCTAssertEqual(texts(aliceReads), ["made it"])
    }
}
