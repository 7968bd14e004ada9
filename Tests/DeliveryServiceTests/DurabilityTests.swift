import DeliveryService
import Foundation
import HTTP
import MLS
import Store
import XCTest

/// The real executable under load, stopped by SIGTERM or killed with SIGKILL: every message the
/// server acknowledged with a 2xx is in the database afterwards, seq stays dense, and no commit is
/// half applied. The conversations are set up in-process (ServiceHarness and ChatFlow, real MLS
/// clients); the in-process server then stops and the child process serves the same database.
final class DurabilityTests: XCTestCase {
    static let sendMessage = "blue.catbird.mls.sendMessage"
    static let commitGroupChange = "blue.catbird.mls.commitGroupChange"

    /// One member sending from its own thread with its own MLS group state.
    final class Sender: @unchecked Sendable {
        let user: MLSTestUser
        let convo: String
        var acknowledged: [String] = []
        var failures = 0
        /// True when the loop ended because the server went away, not because it ran out.
        var interrupted = false

        init(user: MLSTestUser, convo: String) {
            self.user = user
            self.convo = convo
        }

        /// Sends up to `limit` messages until the server stops answering; records the 2xx msgIds.
        func run(baseURL: String, limit: Int, successes: Counter) {
            let client = HTTPClient(timeout: 15, maxBodySize: 1 << 20, allowPrivateAddresses: true)
            for index in 0..<limit {
                guard var group = user.groups[convo], let message = try? group.encrypt(Array("m\(index)".utf8)) else { return }
                user.groups[convo] = group
                let msgID = UUID().uuidString.lowercased()
                let body: [String: Any] = ["convoId": convo, "msgId": msgID, "epoch": Int(group.epoch),
                                           "ciphertext": MLSTestUser.bytes(message)]
                guard let data = try? JSONSerialization.data(withJSONObject: body) else { return }
                let token = user.identity.token(audience: ServiceHarness.serviceDID, nsid: DurabilityTests.sendMessage)
                do {
                    let response = try client.send(method: "POST", baseURL + "/xrpc/" + DurabilityTests.sendMessage,
                                                   headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                                   body: Array(data))
                    if (200..<300).contains(response.status) {
                        acknowledged.append(msgID)
                        successes.increment()
                    } else {
                        failures += 1
                        // 503: the database went away under the server.
                        if response.status == 503 { interrupted = true }
                        if response.status == 503 || failures > 20 { return }
                    }
                } catch {
                    interrupted = true  // the server is gone (refused, reset, or cut off mid-request)
                    return
                }
            }
        }
    }

    /// One member committing self-updates (with GroupInfo) in a convo of its own.
    final class Committer: @unchecked Sendable {
        let user: MLSTestUser
        let convo: String
        var acknowledgedEpochs: [Int] = []

        init(user: MLSTestUser, convo: String) {
            self.user = user
            self.convo = convo
        }

        func run(baseURL: String, limit: Int, successes: Counter) {
            let client = HTTPClient(timeout: 15, maxBodySize: 1 << 20, allowPrivateAddresses: true)
            for _ in 0..<limit {
                guard let group = user.groups[convo], let output = try? group.update() else { return }
                let body: [String: Any] = [
                    "convoId": convo, "commit": MLSTestUser.bytes(output.commit),
                    "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
                ]
                guard let data = try? JSONSerialization.data(withJSONObject: body) else { return }
                let token = user.identity.token(audience: ServiceHarness.serviceDID, nsid: DurabilityTests.commitGroupChange)
                do {
                    let response = try client.send(method: "POST", baseURL + "/xrpc/" + DurabilityTests.commitGroupChange,
                                                   headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                                   body: Array(data))
                    guard response.status == 200 else { return }
                    user.groups[convo] = output.group
                    acknowledgedEpochs.append(Int(output.group.epoch))
                    successes.increment()
                } catch {
                    return
                }
            }
        }
    }

    struct Setup {
        let harness: ServiceHarness
        let senders: [Sender]
        let committer: Committer
        let chatConvo: String
        let commitConvo: String
        let commitConvoStartEpoch: Int
    }

    /// Four members in one chat, a fifth alone in a convo it keeps committing to; then the
    /// in-process server stops, leaving database and PLC directory to the child process.
    func makeSetup(server: String? = nil) throws -> Setup {
        let harness = try ServiceHarness(server: server)
        let flow = ChatFlow(service: harness)
        let members = (0..<4).map { _ in flow.user() }
        for member in members.dropFirst() { try flow.publishKeyPackage(member) }
        let chat = try flow.createConvo(members[0], with: Array(members.dropFirst()))
        for member in members.dropFirst() { try flow.join(member, chat) }
        let loner = flow.user()
        let solo = try flow.createConvo(loner, with: [])
        let startEpoch = try XCTUnwrap(try flow.epoch(loner, solo))
        harness.app.shutdown()
        return Setup(harness: harness, senders: members.map { Sender(user: $0, convo: chat) },
                     committer: Committer(user: loner, convo: solo), chatConvo: chat, commitConvo: solo,
                     commitConvoStartEpoch: startEpoch)
    }

    /// Runs the load against `server`; once `threshold` requests have succeeded, calls `interrupt`.
    func load(_ setup: Setup, server: DurabilityServerProcess, threshold: Int, interrupt: () -> Void) {
        let successes = Counter()
        let finished = DispatchGroup()
        let baseURL = server.baseURL
        for sender in setup.senders {
            finished.enter()
            Thread.detachNewThread {
                sender.run(baseURL: baseURL, limit: 400, successes: successes)
                finished.leave()
            }
        }
        let committer = setup.committer
        finished.enter()
        Thread.detachNewThread {
            committer.run(baseURL: baseURL, limit: 400, successes: successes)
            finished.leave()
        }
        // Bounded: at most 60 s for the threshold, then the interruption happens regardless.
        for _ in 0..<3000 where Int(successes.value) < threshold {
            Thread.sleep(forTimeInterval: 0.02)
        }
        interrupt()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success, "the load threads did not stop")
        XCTAssertGreaterThanOrEqual(Int(successes.value), threshold)
        XCTAssertTrue(setup.senders.contains { $0.interrupted }, "the interruption came after the load had ended")
    }

    /// Every acknowledged message stored, seq 1...N without gaps; the commit convo's epoch, commit
    /// rows, commit messages, public state and GroupInfo all agree.
    func verifyDatabase(_ setup: Setup, file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try Database(url: setup.harness.databaseURL, poolSize: 1)
        defer { database.close() }
        for convo in [setup.chatConvo, setup.commitConvo] {
            let seqs = try database.query("SELECT seq FROM messages WHERE convo_id = $1 ORDER BY seq", [convo])
                .map { try $0.decode(Int64.self, "seq") }
            XCTAssertEqual(seqs, (0..<Int64(seqs.count)).map { $0 + 1 }, "seq has gaps in \(convo)", file: file, line: line)
        }
        let stored = Set(try database.query("SELECT msg_id FROM messages WHERE convo_id = $1", [setup.chatConvo])
            .map { try $0.decode(String.self, "msg_id") })
        let acknowledged = setup.senders.flatMap(\.acknowledged)
        XCTAssertFalse(acknowledged.isEmpty, file: file, line: line)
        let lost = acknowledged.filter { !stored.contains($0) }
        XCTAssertEqual(lost, [], "acknowledged messages missing from the database", file: file, line: line)

        let convo = try XCTUnwrap(try database.query(
            "SELECT epoch, group_info, group_info_epoch, public_state FROM convos WHERE convo_id = $1", [setup.commitConvo]).first)
        let epoch = Int(try convo.decode(Int64.self, "epoch"))
        let commitEpochs = try database.query("SELECT epoch FROM commits WHERE convo_id = $1 ORDER BY epoch", [setup.commitConvo])
            .map { Int(try $0.decode(Int64.self, "epoch")) }
        XCTAssertEqual(commitEpochs, Array(setup.commitConvoStartEpoch..<epoch), "commit rows and epoch disagree", file: file, line: line)
        let commitMessages = try database.query(
            "SELECT count(*) AS n FROM messages WHERE convo_id = $1 AND message_type = 'commit'", [setup.commitConvo])
        XCTAssertEqual(Int(try commitMessages[0].decode(Int64.self, "n")), commitEpochs.count, file: file, line: line)
        XCTAssertEqual(Int(try convo.decode(Int64.self, "group_info_epoch")), epoch, file: file, line: line)
        XCTAssertEqual(Int(try PublicGroup(serialized: try convo.decode([UInt8].self, "public_state")).epoch), epoch,
                       file: file, line: line)
        let acknowledgedEpochs = setup.committer.acknowledgedEpochs
        XCTAssertFalse(acknowledgedEpochs.isEmpty, file: file, line: line)
        XCTAssertLessThanOrEqual(acknowledgedEpochs.max() ?? 0, epoch, "an acknowledged commit was lost", file: file, line: line)
        // At most the one commit in flight at the interruption may have landed unacknowledged.
        XCTAssertLessThanOrEqual(epoch - (acknowledgedEpochs.max() ?? 0), 1, file: file, line: line)
    }

    func test_sigtermDuringLoad_losesNoAcknowledgedMessage_andExitsZero() throws {
        let setup = try makeSetup()
        defer { setup.harness.shutdown() }
        let server = try DurabilityServerProcess(databaseURL: setup.harness.databaseURL, plcURL: setup.harness.plc.baseURL)
        load(setup, server: server, threshold: 150) { server.terminate() }
        let exit = server.waitForExit()
        XCTAssertEqual(exit?.reason, .exit, "\(server.log.suffix(10))")
        XCTAssertEqual(exit?.status, 0, "\(server.log.suffix(10))")
        XCTAssertTrue(server.log.contains { $0.contains("\"msg\":\"stopped\"") }, "no orderly stop logged")
        try verifyDatabase(setup)
    }

    func test_kill9DuringLoad_thenRestart_keepsEveryAcknowledgedWrite_andConsistentState() throws {
        let setup = try makeSetup()
        defer { setup.harness.shutdown() }
        let server = try DurabilityServerProcess(databaseURL: setup.harness.databaseURL, plcURL: setup.harness.plc.baseURL)
        load(setup, server: server, threshold: 150) { server.kill9() }
        let exit = server.waitForExit()
        XCTAssertEqual(exit?.reason, .uncaughtSignal)
        XCTAssertEqual(exit?.status, SIGKILL)
        try verifyDatabase(setup)

        // The restarted server serves the same state through the API.
        let restarted = try DurabilityServerProcess(databaseURL: setup.harness.databaseURL, plcURL: setup.harness.plc.baseURL)
        defer {
            restarted.terminate()
            XCTAssertEqual(restarted.waitForExit()?.status, 0)
        }
        let client = HTTPClient(timeout: 15, maxBodySize: 64 << 20, allowPrivateAddresses: true)
        func get(_ user: MLSTestUser, _ nsid: String, _ query: String) throws -> [String: Any] {
            let token = user.identity.token(audience: ServiceHarness.serviceDID, nsid: nsid)
            let response = try client.send(method: "GET", restarted.baseURL + "/xrpc/" + nsid + "?" + query,
                                           headers: [("Authorization", "Bearer " + token)])
            XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        }
        let loner = setup.committer.user
        let epoch = try XCTUnwrap(get(loner, "blue.catbird.mls.getEpoch", "convoId=\(setup.commitConvo)")["currentEpoch"] as? Int)
        let info = try get(loner, "blue.catbird.mls.getGroupInfo", "convoId=\(setup.commitConvo)")
        XCTAssertEqual(info["epoch"] as? Int, epoch)
        guard case .groupInfo(let groupInfo) = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(info["groupInfo"]))).body else {
            return XCTFail("getGroupInfo did not return a GroupInfo")
        }
        XCTAssertEqual(Int(groupInfo.groupContext.epoch), epoch)

        var seen: [String] = []
        var since = 0
        for _ in 0..<100 {
            let page = try get(setup.senders[0].user, "blue.catbird.mls.getMessages",
                               "convoId=\(setup.chatConvo)&sinceSeq=\(since)&limit=100")
            let messages = page["messages"] as? [[String: Any]] ?? []
            if messages.isEmpty { break }
            for message in messages {
                XCTAssertEqual(message["seq"] as? Int, since + 1, "seq gap after \(since)")
                since = message["seq"] as? Int ?? since + 1
                if let id = message["id"] as? String { seen.append(id) }
            }
        }
        let served = Set(seen)
        XCTAssertEqual(setup.senders.flatMap(\.acknowledged).filter { !served.contains($0) }, [])
    }
}
