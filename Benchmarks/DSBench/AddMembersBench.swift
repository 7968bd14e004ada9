import Foundation
import MLS

/// addMembers with many adds, end to end: the client builds the commit with `Group.add` of `adds`
/// published KeyPackages, then the server validates it with PublicGroup and applies it in one
/// transaction. Each round uses a fresh conversation; the two times are reported separately.
struct AddMembersBench {
    let client: XRPCClient
    let plcDirectory: String

    struct Round {
        var commitSeconds: Double
        var requestSeconds: Double
        var requestBytes: Int
    }

    func run(adds: Int, rounds: Int) throws -> [Round] {
        let creator = try BenchUser()
        let invitees = try (0..<adds).map { _ in try BenchUser() }
        for user in [creator] + invitees { try PLCDirectory.publish(user, in: plcDirectory) }
        // Every invitee publishes one KeyPackage per round; the server consumes it on the add.
        let client = client
        let packages = try Parallel.map(adds) { index in
            try (0..<rounds).map { _ in
                let bundle = try invitees[index].makeKeyPackage()
                try client.publish(bundle, as: invitees[index])
                return bundle.keyPackage
            }
        }
        return try (0..<rounds).map { round in
            try runRound(creator: creator, keyPackages: packages.map { $0[round] })
        }
    }

    private func runRound(creator: BenchUser, keyPackages: [KeyPackage]) throws -> Round {
        let created = try Group.create(suite: BenchUser.suite, credential: creator.credential, signingKey: creator.signingKey)
        let first = try created.update()
        let reply = try client.call("blue.catbird.mls.createConvo", as: creator,
                                    json: WireFormat.createConvoBody(groupID: created.groupID, groupInfo: first.groupInfo, name: "bench"))
        guard let convoID = reply["id"] as? String else { throw BenchError.unexpected("createConvo returned no id") }

        let commitClock = Stopwatch()
        let output = try first.group.add(keyPackages: keyPackages)
        let commitSeconds = commitClock.seconds
        guard let welcome = output.welcome else { throw BenchError.unexpected("an add produced no Welcome") }

        let nsid = "blue.catbird.mls.addMembers"
        let body = Array(try JSONSerialization.data(withJSONObject: [
            "convoId": convoID, "commit": WireFormat.bytes(output.commit), "welcomeMessage": WireFormat.bytes(welcome),
            "groupInfo": WireFormat.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
        ]))
        let token = try creator.token(audience: client.audience, nsid: nsid)
        let requestClock = Stopwatch()
        let answer = try client.post(nsid, token: token, body: body)
        let requestSeconds = requestClock.seconds
        guard (answer["addedMembers"] as? [Any])?.count == keyPackages.count else {
            throw BenchError.unexpected("addMembers added \(answer["addedMembers"] ?? "nothing")")
        }
        return Round(commitSeconds: commitSeconds, requestSeconds: requestSeconds, requestBytes: body.count)
    }
}
