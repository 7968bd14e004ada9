// libFuzzer target for SealedCommitVerifier; built by scripts/fuzz.sh, not by SwiftPM.
// A three-member sealed group is made once per process and Alice's sealed self-update is the honest
// case. Each input is a recipe of edits to the bytes of that commit's GroupInfo (tree inline) or of
// the tree given beside a GroupInfo without one: the verifier must never crash, and must accept only
// the honest bytes (every edit breaks the GroupInfo signature or the GroupContext's tree hash).
import MLS

struct HonestSealedCommit: Sendable {
    let verifier: SealedCommitVerifier
    let commit: MLSMessage
    /// The GroupInfo with its ratchet_tree extension.
    let groupInfo: [UInt8]
    /// The same GroupInfo without the extension, signed again, and the tree given beside it.
    let bareGroupInfo: GroupInfo
    let tree: [UInt8]

    static func make() -> HonestSealedCommit {
        do {
            let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
            let sealed = GroupConfiguration(wireFormatPolicy: .pureCiphertext)
            let aliceKey = try suite.signatureScheme.generatePrivateKey()
            let alice = try Group.create(suite: suite, credential: .basic(identity: Array("alice".utf8)), signingKey: aliceKey,
                                         configuration: sealed)
            let packages = try ["bob", "carol"].map {
                try KeyPackageBundle.generate(suite: suite, credential: .basic(identity: Array($0.utf8)),
                                              signingKey: try suite.signatureScheme.generatePrivateKey(),
                                              lifetime: Lifetime(notBefore: 0, notAfter: .max)).keyPackage
            }
            let grown = try alice.add(keyPackages: packages).group
            let update = try grown.update()
            var bare = update.groupInfo
            guard let treeExtension = bare.extensions.first(ofType: .ratchetTree) else { fatalError("no tree") }
            bare.extensions.removeAll { $0.extensionType == .ratchetTree }
            try bare.sign(with: aliceKey, suite: suite)
            return HonestSealedCommit(
                verifier: SealedCommitVerifier(current: grown.publicGroup), commit: update.commit,
                groupInfo: update.groupInfo.encoded(), bareGroupInfo: bare, tree: treeExtension.extensionData)
        } catch {
            fatalError("cannot build the honest sealed commit: \(error)")
        }
    }
}

let honest = HonestSealedCommit.make()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let recipe = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = recipe.first else { return 0 }
    let editsTree = mode & 1 == 1
    let original = editsTree ? honest.tree : honest.groupInfo
    let edited = apply(recipe.dropFirst(), to: original)
    let accepted: Bool
    if editsTree {
        guard let tree = try? RatchetTree(decoding: edited) else { return 0 }
        accepted = (try? honest.verifier.verify(commit: honest.commit, groupInfo: honest.bareGroupInfo, ratchetTree: tree)) != nil
    } else {
        guard let groupInfo = try? GroupInfo(decoding: edited) else { return 0 }
        accepted = (try? honest.verifier.verify(commit: honest.commit, groupInfo: groupInfo)) != nil
    }
    precondition(!accepted || edited == original, "the verifier accepted an edited \(editsTree ? "tree" : "GroupInfo")")
    return 0
}

/// Three bytes per edit: a 16-bit position and an operation (flip, delete, insert, truncate).
func apply(_ recipe: ArraySlice<UInt8>, to bytes: [UInt8]) -> [UInt8] {
    var result = bytes
    var edits = recipe
    while edits.count >= 3, !result.isEmpty {
        let start = edits.startIndex
        let position = (Int(edits[start]) << 8 | Int(edits[start + 1])) % result.count
        let operation = edits[start + 2]
        switch operation % 4 {
        case 0: result[position] ^= operation | 1
        case 1: result.remove(at: position)
        case 2: result.insert(operation, at: position)
        default: result.removeLast(result.count - position)
        }
        edits = edits.dropFirst(3)
    }
    return result
}
