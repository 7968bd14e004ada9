import Foundation
import MLS
import Primitives

/// Group operations (suite 1): add N members in one commit, a member processing it, a joiner's
/// Welcome, the PublicGroup validating it; a self-update in a 1000-member group; the sealed-commit
/// verifier; 1 KB messages.
enum GroupBench {
    static let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    static func run() throws {
        print("— group operations, \(suite) —")
        for n in [10, 100, 1000] { try addMembers(n) }
        try selfUpdate(members: 1000)
        for n in [100, 1000] { try sealedVerify(members: n) }
        try messages()
    }

    /// One phase alone, for profiling (`mls-bench group-profile [commit|process|decrypt|public] [N]`).
    static func profile(phase: String, members n: Int) throws {
        let (alice, bob) = try pair()
        let packages = try (0..<n).map { try keyPackage("member-\($0)").keyPackage }
        let output = try alice.add(keyPackages: packages)
        let rounds = max(1, 1000 / n)
        switch phase {
        case "commit":
            try timeIt("add \(n): commit", rounds) { _ = try alice.add(keyPackages: packages) }
        case "process":
            try timeIt("add \(n): member processes the commit", rounds) {
                var receiver = bob
                _ = try receiver.process(output.commit)
            }
        case "decrypt":
            var (sender, receiver) = try pair()
            let kilobyte = SecureRandom.bytes(1024)
            let batch = try (0..<n).map { _ in try sender.encrypt(kilobyte) }
            try timeIt("\(n) × 1 KB application message decrypt", 1) {
                var member = receiver
                for message in batch { _ = try member.decrypt(message) }
            }
        default:
            let observer = alice.publicGroup
            try timeIt("add \(n): PublicGroup validates the commit", rounds) { _ = try observer.validateAndApply(commit: output.commit) }
        }
    }

    static func keyPackage(_ name: String, suite: CipherSuite = suite) throws -> KeyPackageBundle {
        try KeyPackageBundle.generate(
            suite: suite, credential: .basic(identity: Array(name.utf8)), signingKey: try suite.signatureScheme.generatePrivateKey(),
            lifetime: Lifetime(notBefore: 0, notAfter: .max))
    }

    /// Alice and Bob, then an observer of their epoch.
    static func pair(suite: CipherSuite = suite) throws -> (alice: Group, bob: Group) {
        let alice = try Group.create(suite: suite, credential: .basic(identity: Array("alice".utf8)),
                                     signingKey: try suite.signatureScheme.generatePrivateKey())
        let bobKP = try keyPackage("bob", suite: suite)
        let output = try alice.add(keyPackages: [bobKP.keyPackage])
        return (output.group, try Group.join(welcome: output.welcome!, keyPackage: bobKP))
    }

    static func addMembers(_ n: Int, suite: CipherSuite = suite) throws {
        let (alice, bob) = try pair(suite: suite)
        let bundles = try (0..<n).map { try keyPackage("member-\($0)", suite: suite) }
        let packages = bundles.map(\.keyPackage)
        let rounds = n >= 1000 ? 3 : (n >= 100 ? 10 : 50)
        var output = try alice.add(keyPackages: packages)
        try timeIt("add \(n): commit (incl. Welcome, GroupInfo)", rounds) { output = try alice.add(keyPackages: packages) }
        try timeIt("add \(n): member processes the commit", rounds) {
            var receiver = bob
            _ = try receiver.process(output.commit)
        }
        let welcome = output.welcome!
        try timeIt("add \(n): join from the Welcome", rounds) {
            _ = try Group.join(welcome: welcome, keyPackage: bundles[n / 2])
        }
        let observer = alice.publicGroup
        try timeIt("add \(n): PublicGroup validates the commit", rounds) {
            _ = try observer.validateAndApply(commit: output.commit)
        }
        let published = Set(bundles.map(\.ref))
        try timeIt("add \(n): PublicGroup, KeyPackages known valid", rounds) {
            _ = try observer.validateAndApply(commit: output.commit, trustedKeyPackageRefs: published)
        }
    }

    /// Self-update commits in an n-member group, twice: right after the one add-n commit, when almost every
    /// parent node is blank so the path is encrypted to about n leaves; then with the committer's copath
    /// populated, the steady state where the path is encrypted to log2(n) nodes.
    static func selfUpdate(members n: Int) throws {
        let (alice, bob) = try pair()
        let bundles = try (0..<(n - 2)).map { try keyPackage("member-\($0)") }
        let grown = try alice.add(keyPackages: bundles.map(\.keyPackage))
        var bigBob = bob
        _ = try bigBob.process(grown.commit)
        var bigAlice = grown.group
        try timeSelfUpdate("self-update, \(n) members, mostly blank", committer: bigAlice, receiver: bigBob)

        // Alice (leaf 0) has as copath leaf 1 and the parents over leaves 2^k..2^(k+1)-1. The member at
        // leaf 2^k (bundle 2^k - 2) fills that parent when it commits, so after these commits, each
        // processed by everyone still to act, Alice's path goes to one node per level as in a full tree.
        var committers: [Group] = []
        var leaf = 2
        while leaf < n {
            committers.append(try Group.join(welcome: grown.welcome!, keyPackage: bundles[leaf - 2]))
            leaf *= 2
        }
        for index in committers.indices {
            let update = try committers[index].update()
            for other in committers.indices where other > index { _ = try committers[other].process(update.commit) }
            _ = try bigAlice.process(update.commit)
            _ = try bigBob.process(update.commit)
        }
        try timeSelfUpdate("self-update, \(n) members, populated copath", committer: bigAlice, receiver: bigBob)
    }

    static func timeSelfUpdate(_ label: String, committer: Group, receiver: Group) throws {
        var update = try committer.update()
        try timeIt("\(label): commit", 20) { update = try committer.update() }
        try timeIt("\(label): process", 20) {
            var member = receiver
            _ = try member.process(update.commit)
        }
        let observer = committer.publicGroup
        try timeIt("\(label): PublicGroup", 20) { _ = try observer.validateAndApply(commit: update.commit) }
    }

    static func messages() throws {
        let (fresh, receiver) = try pair()
        var bob = receiver
        var alice = fresh
        let kilobyte = SecureRandom.bytes(1024)
        try measure("1 KB application message encrypt") { _ = try alice.encrypt(kilobyte) }
        // A fresh sender, so the receiver's ratchet window covers the batch.
        var sender = fresh
        let batch = try (0..<5000).map { _ in try sender.encrypt(kilobyte) }
        let start = DispatchTime.now().uptimeNanoseconds
        for message in batch { _ = try bob.decrypt(message) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = Double(batch.count) / seconds
        print("1 KB application message decrypt".padding(toLength: 44, withPad: " ", startingAt: 0)
              + " \(String(Int(rate.rounded())).leftPadded(9)) ops/s  (\(Int((1e6 / rate).rounded())) µs/op)")
    }

    /// Runs `body` `rounds` times after one warm-up and prints milliseconds per run.
    static func timeIt(_ name: String, _ rounds: Int, _ body: () throws -> Void) rethrows {
        try body()
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<rounds { try body() }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(rounds)
        print(name.padding(toLength: 60, withPad: " ", startingAt: 0) + " " + String(format: "%9.2f ms", ms))
    }
}
