import Foundation
import HTTP
import MLS
import Synchronization

/// Two members of a conversation of their own commit a self-update for the same epoch, one sent
/// just before the database fails and one just after: exactly one may win (200) and the other must
/// be refused (409), however many 503s each met meanwhile. Each retries a 503 with the same body
/// and idempotency key, so a commit that landed although its answer was lost is answered 200 when
/// retried, as a client would see it.
struct CommitRace {
    static let nsid = "blue.catbird.mls.commitGroupChange"

    let convoID: String
    let racers: [(user: BenchUser, group: Group)]
    let startEpoch: UInt64

    /// Creates the conversation: the first user with the second, who joins from the Welcome.
    init(client: XRPCClient, plcDirectory: String) throws {
        let users = [try BenchUser(), try BenchUser()]
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        let data = SendMessageData(client: client, plcDirectory: plcDirectory, senders: 2, convos: 1, ciphertextSize: 64)
        let (convoID, groups) = try data.createConvo(creator: 0, users: users)
        self.convoID = convoID
        racers = Array(zip(users, groups)).map { ($0, $1) }
        startEpoch = groups[0].epoch
    }

    struct Outcome: Sendable {
        /// Each racer's final status (0: no answer), and the 503s it met first.
        var statuses: [Int]
        var unavailable: [Int]
    }

    /// Sends racer `index`'s commit to `node`, retrying 503 every 0.1 s for up to `deadline` seconds.
    func send(_ index: Int, to node: XRPCClient, requestTimeout: Double, deadline: Double) -> (status: Int, unavailable: Int) {
        let http = HTTPClient(timeout: requestTimeout, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        let racer = racers[index]
        guard let output = try? racer.group.update(), let body = try? JSONSerialization.data(withJSONObject: [
            "convoId": convoID, "commit": WireFormat.bytes(output.commit),
            "groupInfo": WireFormat.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
            "idempotencyKey": "race-\(index)-\(convoID)",
        ]) else { return (0, 0) }
        let end = ProcessClock.now() + UInt64(deadline * 1e9)
        var unavailable = 0
        while true {
            guard let token = try? racer.user.token(audience: node.audience, nsid: Self.nsid),
                  let response = try? http.send(method: "POST", node.baseURL + "/xrpc/" + Self.nsid,
                                                headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                                body: Array(body)) else { return (0, unavailable) }
            guard response.status == 503, ProcessClock.now() < end else { return (response.status, unavailable) }
            unavailable += 1
            usleep(100_000)
        }
    }

    /// The conversation's epoch as the service reports it now.
    func currentEpoch(_ node: XRPCClient) throws -> UInt64? {
        let nsid = "blue.catbird.mls.getEpoch"
        let token = try racers[0].user.token(audience: node.audience, nsid: nsid)
        let reply = try node.get(nsid, query: "convoId=\(convoID)", token: token)
        return (reply["currentEpoch"] as? NSNumber).map { $0.uint64Value }
    }
}
