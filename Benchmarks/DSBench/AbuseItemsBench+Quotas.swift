import Foundation
import MLS

/// Item 8, quotas: many requesters draining one user's KeyPackages, and a member filling the
/// store with messages.
extension AbuseItemsBench {
    static let getKeyPackages = "blue.catbird.mls.getKeyPackages"
    static let createConvo = "blue.catbird.mls.createConvo"

    func quotaItems() -> [(String, () throws -> Item?)] {
        [("8a", keyPackageDrainingItem), ("8b", messageFloodItem)]
    }

    /// A group of `creator` with the member of `package`, as createConvo's body.
    static func createConvoBody(_ creator: BenchUser, adding package: KeyPackage) throws -> [UInt8] {
        let group = try Group.create(suite: BenchUser.suite, credential: creator.credential, signingKey: creator.signingKey)
        let output = try group.add(keyPackages: [package], includePath: false)
        return try json(WireFormat.createConvoBody(groupID: group.groupID, groupInfo: output.groupInfo, commit: output.commit,
                                                   welcome: output.welcome))
    }

    /// 20 accounts (Sybils), four at a time, each fetching bob's KeyPackage and creating a
    /// conversation with it until it is refused; bob has 150 one-time packages and a last-resort one.
    func keyPackageDrainingItem() throws -> Item? {
        let client = bench.client, request = bench.attacker, audience = client.audience
        let bob = try attackerAccount()
        _ = try Parallel.map(150) { _ in try client.publish(try bob.makeKeyPackage(), as: bob) }
        let lastResort = try bob.makeKeyPackage()
        var body = WireFormat.publishKeyPackageBody(lastResort)
        body["lastResort"] = true
        try client.call("blue.catbird.mls.publishKeyPackage", as: bob, json: body)
        let sybils = try (0..<20).map { _ in try attackerAccount() }
        let threads = 4
        let query = "dids=" + bob.did.rawValue
        return Item(number: "8a", attack: "KeyPackage draining: 20 accounts, 4 at a time, each getKeyPackages(bob) + createConvo with "
                        + "bob until refused; bob has 150 one-time KeyPackages and a last-resort one",
                    stoppedBy: "KEY_PACKAGE_USES_PER_REQUESTER (20 per hour, 429), KEY_PACKAGE_USES_PER_TARGET (100 one-time per "
                        + "hour), then bob's last-resort package, never consumed",
                    target: bench, knownCall: "getConvos", knownRate: knownRate, call: bench.known.getConvos,
                    threads: threads) { thread, run in
            for sybil in stride(from: thread, to: sybils.count, by: threads).map({ sybils[$0] }) {
                while run.isRunning {
                    let fetched = request.xrpc(Self.getKeyPackages, token: try? sybil.token(audience: audience, nsid: Self.getKeyPackages),
                                               query: query)
                    guard let package = WireFormat.keyPackage((fetched.json["keyPackages"] as? [[String: Any]])?.first?["keyPackage"]),
                          let convo = try? Self.createConvoBody(sybil, adding: package),
                          let token = try? sybil.token(audience: audience, nsid: Self.createConvo) else {
                        run.tally.add("getKeyPackages: \(fetched.label), no package")
                        continue
                    }
                    let created = request.xrpc(Self.createConvo, token: token, json: convo)
                    let kind = package.reference(suite: BenchUser.suite) == lastResort.ref ? "bob's last-resort" : "a one-time"
                    run.tally.add(created.label + (created.status == 200 ? " (\(kind) package)" : ""))
                    if created.status == 429 { break }
                }
            }
        } afterwards: { _ in
            let known = bench.known.user
            let served = try client.get(Self.getKeyPackages, query: query,
                                        token: try known.token(audience: audience, nsid: Self.getKeyPackages))
            guard let package = WireFormat.keyPackage((served["keyPackages"] as? [[String: Any]])?.first?["keyPackage"]) else {
                throw BenchError.unexpected("getKeyPackages served the known user nothing for bob")
            }
            try client.post(Self.createConvo, token: try known.token(audience: audience, nsid: Self.createConvo),
                            body: try Self.createConvoBody(known, adding: package))
            let stats = try client.get("blue.catbird.mls.getKeyPackageStats",
                                       token: try bob.token(audience: audience, nsid: "blue.catbird.mls.getKeyPackageStats"))
            let kind = package.reference(suite: BenchUser.suite) == lastResort.ref ? "bob's last-resort package" : "a one-time package"
            return "bob kept \(stats["available"] as? Int ?? -1) of 150 one-time KeyPackages; the known user was served \(kind) "
                + "and created a conversation with it (200)"
        }
    }

    /// A member sending 1 MiB messages to a conversation from four connections as fast as the
    /// server takes them, while another member sends to the same conversation.
    func messageFloodItem() throws -> Item? {
        guard let limited, let quota = limitedMessageQuota else { return nil }
        let mallory = try attackerAccount()
        let known = limited.known
        let setUp = SendMessageData(client: limited.client, plcDirectory: plcDirectory, senders: 2, convos: 1, ciphertextSize: 1 << 20)
        let (convoID, groups) = try setUp.createConvo(creator: 0, users: [known.user, mallory])
        var group = groups[1]
        let plaintext = [UInt8](repeating: 0x61, count: try setUp.plaintextSize(probing: &group))
        let ciphertext = try group.encrypt(plaintext).encoded()
        let prefix = "{\"convoId\":\"\(convoID)\",\"epoch\":\(group.epoch),\"ciphertext\":{\"$bytes\":\"\(WireFormat.base64(ciphertext))\"},"
            + "\"msgId\":\""
        let sender = KnownSender(known.user, client: limited.client, convoID: convoID, group: groups[0])
        let ids = MessageIDs(), audience = limited.client.audience, request = limited.attacker
        // Within RATE_LIMIT_SEND (20/s, burst 100), so that the known member meets only the attack.
        let knownSendRate = min(knownRate, 10)
        let charge = ciphertext.count + 256
        return Item(number: "8b", attack: "storage-filling sendMessage flood: one member, 4 connections, \(ciphertext.count >> 10) KiB "
                        + "messages back to back into a conversation the known user is in",
                    stoppedBy: "MESSAGE_QUOTA_BYTES (here \(quota >> 20) MiB; 1 GiB by default) per sender, 413 QuotaExceeded, and "
                        + "RATE_LIMIT_SEND (20/s, burst 100) per DID, 429",
                    target: limited, knownCall: "sendMessage, same convo", knownRate: knownSendRate, call: sender.sendMessage,
                    threads: 4) { thread, run in
            // Ids of their own: the known member's MessageIDs count from 1 and may share the millisecond.
            var index = (thread + 1) << 20
            run.repeatedly {
                index += 1
                return request.xrpc(SendMessageData.nsid, token: try mallory.token(audience: audience, nsid: SendMessageData.nsid),
                                    json: Array((prefix + ids.id(index) + "\"}").utf8))
            }
        } afterwards: { run in
            let stored = run.tally.count(of: "200")
            return "the attacker stored \(stored) messages, charged \(String(format: "%.1f", Double(stored * charge) / 1_048_576)) MiB "
                + "of its \(quota >> 20) MiB quota"
        }
    }
}
