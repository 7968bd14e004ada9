import Foundation
import MLS
import MLSTestSupport

/// Items 2–6: hostile MLS input (`MLSTestSupport.MLSAttacks`, the inputs `AbuseMLSTests` sends),
/// each body built once and sent again and again with fresh tokens: each is refused without a
/// state change, so every repeat costs the server the same. Bodies over 64 KiB stream to a worker,
/// and MAX_UPLOADS_PER_USER (4) lets one account send four at once: four connections back to back.
extension AbuseItemsBench {
    static let uploadsPerUser = 4

    func mlsItems() -> [(String, () throws -> Item?)] {
        [("2", welcomeItem), ("3", unmergedLeavesItem), ("4", farLeafItem), ("5", proposalFloodItem), ("6", unknownKeyPackagesItem)]
    }

    /// A new account whose DID document the directory serves.
    func attackerAccount() throws -> BenchUser {
        let user = try BenchUser()
        try PLCDirectory.publish(user, in: plcDirectory)
        return user
    }

    static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    static func megabytes(_ body: [UInt8]) -> String {
        String(format: "%.1f MB", Double(body.count) / 1e6)
    }

    /// An attack by `threads` connections of `user`, each sending `bodies` (in turn) to `nsid`
    /// back to back, while the known user calls getConvos.
    func repeatedCalls(_ number: String, _ attack: String, stoppedBy: String, on target: Target, as user: BenchUser, _ nsid: String,
                       bodies: [[UInt8]], threads: Int = uploadsPerUser) -> Item {
        let audience = target.client.audience, request = target.attacker
        return Item(number: number, attack: attack, stoppedBy: stoppedBy, target: target, knownCall: "getConvos", knownRate: knownRate,
                    call: target.known.getConvos, threads: threads) { thread, run in
            var turn = thread
            run.repeatedly {
                turn += 1
                return request.xrpc(nsid, token: try user.token(audience: audience, nsid: nsid), json: bodies[turn % bodies.count])
            }
        }
    }

    // MARK: Item 2

    /// The form: createConvo whose second leaf is a KeyPackage of the caller's own second
    /// device, with a Welcome naming it 20,000 times.
    func welcomeItem() throws -> Item? {
        let mallory = try attackerAccount()
        let device = try mallory.device()
        let package = try device.makeKeyPackage()
        try bench.client.publish(package, as: device)
        let group = try Group.create(suite: BenchUser.suite, credential: mallory.credential, signingKey: mallory.signingKey)
        let output = try group.add(keyPackages: [package.keyPackage], includePath: false)
        guard let welcome = output.welcome else { throw BenchError.unexpected("an add produced no Welcome") }
        let body = try Self.json(WireFormat.createConvoBody(groupID: group.groupID, groupInfo: output.groupInfo, commit: output.commit,
                                                            welcome: try MLSAttacks.repeating(welcome, count: 20_000)))
        return repeatedCalls("2", "createConvo whose Welcome names the caller's own KeyPackage 20,000 times (\(Self.megabytes(body)))",
                             stoppedBy: "Welcome entries one per Add, each once, decoded with room for no more; stored once per commit",
                             on: bench, as: mallory, "blue.catbird.mls.createConvo", bodies: [body])
    }

    // MARK: Items 3 and 4

    func unmergedLeavesItem() throws -> Item? {
        let mallory = try attackerAccount()
        let other = try BenchUser().makeKeyPackage().keyPackage.leafNode
        let (groupID, groupInfo) = try MLSAttacks.groupInfo(
            credential: mallory.credential, signingKey: mallory.signingKey,
            tree: try MLSAttacks.unmergedLeavesTree(count: 1_500_000, other: other), signer: 0, validHash: true)
        let body = try Self.json(WireFormat.createConvoBody(groupID: groupID, groupInfo: groupInfo))
        return repeatedCalls("3", "createConvo, a parent listing 1.5M unmerged_leaves (\(Self.megabytes(body)))",
                             stoppedBy: "unmerged_leaves bounded by the leaves below, strictly increasing; vectors bounded as they are read; "
                                 + "the tree's width and members from its node count before it is built",
                             on: bench, as: mallory, "blue.catbird.mls.createConvo", bodies: [body])
    }

    /// The hash is not the tree's: a server that built the tree before checking it paid for all of it.
    func farLeafItem() throws -> Item? {
        let mallory = try attackerAccount()
        let (groupID, groupInfo) = try MLSAttacks.groupInfo(
            credential: mallory.credential, signingKey: mallory.signingKey, tree: MLSAttacks.farLeafTree(at: 3_000_000),
            signer: 3_000_000, validHash: false)
        let body = try Self.json(WireFormat.createConvoBody(groupID: groupID, groupInfo: groupInfo))
        return repeatedCalls("4", "createConvo, a tree whose only leaf is at index 3,000,000 (\(Self.megabytes(body)) of blanks)",
                             stoppedBy: "the tree's width (below 2 × the member cap) and members from its node count, before it is built",
                             on: bench, as: mallory, "blue.catbird.mls.createConvo", bodies: [body])
    }

    // MARK: Item 5

    /// A member asks to leave again and again in one epoch, each request a distinct self-Remove
    /// (six connections), and with 1 MiB ones (two more), while another member of the conversation
    /// sends messages to it.
    func proposalFloodItem() throws -> Item? {
        let mallory = try attackerAccount()
        let known = bench.known
        let setUp = SendMessageData(client: bench.client, plcDirectory: plcDirectory, senders: 2, convos: 1, ciphertextSize: 0)
        let (convoID, groups) = try setUp.createConvo(creator: 0, users: [known.user, mallory])
        let sender = KnownSender(known.user, client: bench.client, convoID: convoID, group: groups[0])
        var padding = groups[1]
        let oversized = try Self.json(["convoId": convoID, "proposal": WireFormat.bytes(
            try padding.proposeSelfRemove(authenticatedData: [UInt8](repeating: 7, count: 1 << 20)))])
        let malloryGroup = groups[1]
        let audience = bench.client.audience, request = bench.attacker
        let nsid = "blue.catbird.mls.leaveConvo"
        return Item(number: "5", attack: "leaveConvo flood: distinct self-Removes of one member in one epoch (6 connections) and "
                        + "1 MiB ones (2 more)",
                    stoppedBy: "a self-Remove ≤ 4 KiB, one kept per leaf and epoch, verified once; leaveConvo bodies ≤ 16 KiB, "
                        + "refused from Content-Length",
                    target: bench, knownCall: "sendMessage, same convo", knownRate: knownRate, call: sender.sendMessage,
                    threads: 8) { thread, run in
            var group = malloryGroup
            var index = 0
            run.repeatedly {
                index += 1
                let body = thread >= 6 ? oversized : try Self.json(["convoId": convoID, "proposal": WireFormat.bytes(
                    try group.proposeSelfRemove(authenticatedData: Array("leave \(thread)-\(index)".utf8)))])
                return request.xrpc(nsid, token: try mallory.token(audience: audience, nsid: nsid), json: body)
            }
        }
    }

    // MARK: Item 6

    /// Commits adding 1000 well-signed KeyPackages the service never saw (11 MB): one with a
    /// spoiled signature, one signed as it should be, and one of 1001 Adds, in turn.
    func unknownKeyPackagesItem() throws -> Item? {
        let mallory = try attackerAccount()
        let created = try Group.create(suite: BenchUser.suite, credential: mallory.credential, signingKey: mallory.signingKey)
        let first = try created.update()
        let reply = try bench.client.call("blue.catbird.mls.createConvo", as: mallory,
                                          json: WireFormat.createConvoBody(groupID: created.groupID, groupInfo: first.groupInfo))
        guard let convoID = reply["id"] as? String else { throw BenchError.unexpected("createConvo returned no id") }
        let unknown = try MLSAttacks.unpublishedKeyPackages(credential: try BenchUser().credential, count: 1000, padding: 11_000)
        let adds = unknown.map { ProposalOrRef.proposal(.add($0)) }
        let honest = try first.group.update().commit
        let commits = [try MLSAttacks.forged(honest, proposals: adds),
                       try MLSAttacks.signed(first.group, signingKey: mallory.signingKey, proposals: adds),
                       try MLSAttacks.forged(honest, proposals: Array(repeating: adds[0], count: 1001))]
        let bodies = try commits.map { commit in
            try Self.json(["convoId": convoID, "commit": WireFormat.bytes(commit), "welcomeMessage": WireFormat.bytes(MLSAttacks.emptyWelcome)])
        }
        return repeatedCalls("6", "addMembers of 1000 unknown KeyPackages (\(Self.megabytes(bodies[0]))), signature spoiled or not, "
                                 + "and of 1001 Adds, in turn",
                             stoppedBy: "the Add count, the epoch, the store's ref lookup, the Welcome's shape and the member count "
                                 + "before the stored state's validation and any signature",
                             on: bench, as: mallory, "blue.catbird.mls.addMembers", bodies: bodies)
    }
}
